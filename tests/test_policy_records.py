"""``policy_model._records.get`` reads a record's field alike from a dict, any other mapping and a model (#47: whether a
type is a mapping is asked once a type, not once a field, and answers as ``isinstance`` does)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from conversation_reading._domain import domain_db
from policy_model._records import get


class _Rows(Mapping):
    def __init__(self, rows: dict) -> None:
        self._rows = rows

    def __getitem__(self, key: str) -> object:
        return self._rows[key]

    def __iter__(self):
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def test_get_reads_a_mapping_by_key_and_a_model_by_attribute_as_isinstance_says():
    db = domain_db("airline")  # tau2's database: its records are models
    reservation = next(iter(db.reservations.values()))
    records = [{"cabin": "economy"}, MappingProxyType({"cabin": "business"}), _Rows({"cabin": "basic_economy"}),
               reservation, reservation.model_dump()]
    for _ in range(2):  # the second time from the per-type answer
        for record in records:
            want = record.get("cabin", None) if isinstance(record, Mapping) else getattr(record, "cabin", None)
            assert get(record, "cabin") == want
            assert get(record, "no_such_field", "x") == "x"
    assert get(reservation, "cabin") == reservation.cabin and get(_Rows({"cabin": 1}), "cabin") == 1
