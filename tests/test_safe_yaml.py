"""The project's YAML files are read by libyaml's parser under the safe constructor (``loophole_base.safe_yaml``):
the same data as ``yaml.safe_load`` gives, no Python object tags, and the C parser where PyYAML has it."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from loophole_base import safe_yaml
from loophole_base._yaml import _LOADER


def _packaged() -> list[tuple[str, str]]:
    files = [("conversation_reading", "vocabulary.yaml"), ("gold_variants", "catalog.yaml"),
             ("gold_variants", "report_golds.yaml")]
    found = [(package, name) for package, name in files]
    fixes = resources.files("gold_variants").joinpath("policy_fixes")
    found += [("gold_variants", f"policy_fixes/{item.name}") for item in fixes.iterdir() if item.name.endswith(".yaml")]
    return found


@pytest.mark.parametrize(("package", "name"), _packaged())
def test_the_same_data_as_safe_load(package: str, name: str) -> None:
    text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    data = safe_yaml(text)
    assert data == yaml.safe_load(text)
    assert data  # a file that read as nothing would compare equal too


def test_python_object_tags_are_refused() -> None:
    with pytest.raises(yaml.constructor.ConstructorError):
        safe_yaml("x: !!python/object/apply:os.getcwd []\n")


def test_the_c_parser_where_pyyaml_has_it() -> None:
    assert yaml.__with_libyaml__ is False or _LOADER is yaml.CSafeLoader
