"""What counts as correct: the loophole catalog (data) and clause-level readings (code)."""

from ._catalog_hash import (
    catalog_sha256,
)
from ._check import (
    check_variants,
)
from ._conduct import (
    UNIVERSAL_CHECKS,
    Violation,
    conduct_violations,
)
from ._evidence import (
    EvidenceItem,
    Explanation,
    PreconditionResult,
)
from ._fixes import (
    PolicyFix,
    fixed_policy,
    policy_fixes,
    readings_offered,
)
from ._model import (
    Catalog,
    CatalogEntry,
    CertificatePredicate,
    GoldVariant,
    RebookPredicate,
    UpgradeModifyPredicate,
    load_catalog,
)
from ._no_write import (
    TRANSFER_MARK,
    Settled,
    agreed_transfer,
    anaphoric_decline,
    first_false_claim,
    informational_answer,
    withdrawal_after_quote,
    writes_without_yes,
)
from ._preconditions import (
    explain,
    variant_clauses,
)
from ._predicates import (
    predicate_holds,
)
from ._reading import (
    conversation_record,
)
from ._record import (
    RECORD_SCHEMA_VERSION,
    Answer,
    Claim,
    ConversationRecord,
    Decline,
    RecordVersionError,
    Transfer,
    Withdrawal,
    Write,
    read_record,
)
from ._record_reads import (
    evidence_holds,
)
from ._registry import (
    all_variants,
    gold_reading,
    preload,
    readings_by_version,
    variants_for,
)
from ._report_golds import (
    derive_report_golds,
    render_report_golds,
    report_golds_text,
)
from ._requests import (
    Requests,
    pending_ending,
    requests_in,
)
from ._witness import (
    ASK_COMPENSATION_TEXT,
    EVIDENCE_TEXT,
    closing_text,
    confirmation_text,
    witness,
)
from ._write_details import (
    writes_without_details,
)

__all__ = [
    "Answer",
    "Claim",
    "Decline",
    "Transfer",
    "Withdrawal",
    "Write",
    "agreed_transfer",
    "anaphoric_decline",
    "all_variants",
    "ASK_COMPENSATION_TEXT",
    "Catalog",
    "conversation_record",
    "ConversationRecord",
    "catalog_sha256",
    "CatalogEntry",
    "CertificatePredicate",
    "check_variants",
    "closing_text",
    "confirmation_text",
    "conduct_violations",
    "evidence_holds",
    "EVIDENCE_TEXT",
    "EvidenceItem",
    "explain",
    "Explanation",
    "first_false_claim",
    "fixed_policy",
    "gold_reading",
    "GoldVariant",
    "informational_answer",
    "load_catalog",
    "pending_ending",
    "policy_fixes",
    "PolicyFix",
    "PreconditionResult",
    "predicate_holds",
    "preload",
    "read_record",
    "readings_by_version",
    "RECORD_SCHEMA_VERSION",
    "RecordVersionError",
    "readings_offered",
    "derive_report_golds",
    "render_report_golds",
    "report_golds_text",
    "RebookPredicate",
    "Requests",
    "Settled",
    "TRANSFER_MARK",
    "requests_in",
    "UNIVERSAL_CHECKS",
    "UpgradeModifyPredicate",
    "variant_clauses",
    "variants_for",
    "Violation",
    "withdrawal_after_quote",
    "witness",
    "writes_without_details",
    "writes_without_yes",
]
