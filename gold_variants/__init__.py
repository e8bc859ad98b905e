"""What counts as correct: the loophole catalog (data) and clause-level readings (code)."""

from gold_variants._evidence import (
    EvidenceItem,
    Explanation,
    PreconditionResult,
    evidence_holds,
    explain,
)
from gold_variants._fixes import PolicyFix, fixed_policy, policy_fixes, readings_offered
from gold_variants._model import (
    Catalog,
    CatalogEntry,
    CertificatePredicate,
    GoldVariant,
    RebookPredicate,
    UpgradeModifyPredicate,
    load_catalog,
)
from gold_variants._predicates import predicate_holds
from gold_variants._registry import all_variants, gold_reading, preload, variants_for
from gold_variants._witness import witness

__all__ = [
    "Catalog",
    "CertificatePredicate",
    "EvidenceItem",
    "Explanation",
    "PreconditionResult",
    "explain",
    "CatalogEntry",
    "GoldVariant",
    "PolicyFix",
    "fixed_policy",
    "policy_fixes",
    "readings_offered",
    "RebookPredicate",
    "UpgradeModifyPredicate",
    "all_variants",
    "evidence_holds",
    "gold_reading",
    "load_catalog",
    "predicate_holds",
    "preload",
    "variants_for",
    "witness",
]
