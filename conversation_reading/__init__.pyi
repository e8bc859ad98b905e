"""Reading a conversation: normalised text, speech acts (requests, declines, offers, confirmations), claims of
fact and the vocabulary they are read with, gathered in one record. What counts as correct is gold_variants'."""

from ._claims import (
    FalseClaim,
    claim_kinds,
)
from ._compensation import (
    Check,
    Violation,
    unasked_compensation,
)
from ._domain import (
    domain_db,
    domain_tools,
    flight_status,
    write_tools,
)
from ._evidence import (
    CONDITIONAL_RULE,
    TRANSFER_TOOL,
    EvidenceItem,
    PreconditionResult,
    Turn,
    asserted,
    call_text_of,
    excerpt_of,
    first_call_of,
    is_read_tool,
    mentions,
    price_bound,
    read_turns,
)
from ._explanation import (
    EXPLANATION_SCHEMA_VERSION,
    Explanation,
    ExplanationVersionError,
    read_explanation,
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
from ._reading import (
    conversation_record,
)
from ._record import (
    RECORD_SCHEMA_VERSION,
    Answer,
    Claim,
    ConsequentialSentence,
    ConversationRecord,
    Decline,
    Misstatement,
    PendingEnding,
    RecordVersionError,
    StatedWant,
    StatusRead,
    TierClaim,
    TierRead,
    Transfer,
    Withdrawal,
    Write,
    read_record,
)
from ._record_reads import (
    evidence_holds,
    refusal_evidence,
)
from ._units import (
    Units,
    split_sentences,
)
from ._vocabulary import (
    vocabulary,
)
from ._vocabulary_data import (
    ReadingVocabulary,
    load_vocabulary,
)
from ._write_details import (
    writes_without_details,
)

__all__ = [
    "Answer",
    "asserted",
    "agreed_transfer",
    "anaphoric_decline",
    "call_text_of",
    "Check",
    "Claim",
    "ConsequentialSentence",
    "claim_kinds",
    "CONDITIONAL_RULE",
    "conversation_record",
    "ConversationRecord",
    "Decline",
    "domain_db",
    "domain_tools",
    "evidence_holds",
    "EvidenceItem",
    "excerpt_of",
    "Explanation",
    "EXPLANATION_SCHEMA_VERSION",
    "ExplanationVersionError",
    "FalseClaim",
    "first_call_of",
    "first_false_claim",
    "flight_status",
    "informational_answer",
    "is_read_tool",
    "load_vocabulary",
    "mentions",
    "Misstatement",
    "PendingEnding",
    "PreconditionResult",
    "price_bound",
    "read_explanation",
    "read_record",
    "read_turns",
    "ReadingVocabulary",
    "RECORD_SCHEMA_VERSION",
    "RecordVersionError",
    "refusal_evidence",
    "Settled",
    "split_sentences",
    "StatedWant",
    "StatusRead",
    "TierClaim",
    "TierRead",
    "Transfer",
    "TRANSFER_MARK",
    "TRANSFER_TOOL",
    "Turn",
    "unasked_compensation",
    "Units",
    "Violation",
    "vocabulary",
    "Withdrawal",
    "withdrawal_after_quote",
    "Write",
    "writes_without_details",
    "writes_without_yes",
    "write_tools",
]
