"""What counts as correct: the loophole catalog (data) and clause-level readings (code)."""
from ._catalog_hash import catalog_sha256
from ._evidence import EvidenceItem, Explanation, PreconditionResult, evidence_holds
from ._fixes import PolicyFix, fixed_policy, policy_fixes, readings_offered
from ._model import (
    Catalog,
    CatalogEntry,
    CertificatePredicate,
    GoldVariant,
    RebookPredicate,
    UpgradeModifyPredicate,
    load_catalog,
)
from ._preconditions import explain
from ._predicates import predicate_holds
from ._registry import all_variants, gold_reading, preload, readings_by_version, variants_for
from ._requests import Requests, pending_ending, requests_in
from ._witness import witness

__all__ = [
    "catalog_sha256",
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
    "readings_by_version",
    "load_catalog",
    "predicate_holds",
    "preload",
    "pending_ending",
    "Requests",
    "requests_in",
    "variants_for",
    "witness",
]
