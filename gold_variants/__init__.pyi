"""What counts as correct: the loophole catalog (data) and clause-level readings (code)."""

from ._catalog_hash import (
    catalog_sha256,
)
from ._check import (
    check_variants,
)
from ._conduct import (
    UNIVERSAL_CHECKS,
    conduct_violations,
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
from ._preconditions import (
    explain_variant,
    variant_clauses,
    variant_record,
    variant_record_ids,
)
from ._predicates import (
    predicate_holds,
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

__all__ = [
    "all_variants",
    "ASK_COMPENSATION_TEXT",
    "Catalog",
    "catalog_sha256",
    "CatalogEntry",
    "CertificatePredicate",
    "check_variants",
    "closing_text",
    "confirmation_text",
    "conduct_violations",
    "EVIDENCE_TEXT",
    "explain_variant",
    "fixed_policy",
    "gold_reading",
    "GoldVariant",
    "load_catalog",
    "pending_ending",
    "policy_fixes",
    "PolicyFix",
    "predicate_holds",
    "preload",
    "readings_by_version",
    "readings_offered",
    "derive_report_golds",
    "render_report_golds",
    "report_golds_text",
    "RebookPredicate",
    "Requests",
    "requests_in",
    "UNIVERSAL_CHECKS",
    "UpgradeModifyPredicate",
    "variant_clauses",
    "variant_record",
    "variant_record_ids",
    "variants_for",
    "witness",
]
