"""Models whose `__init__` is a library's (pydantic's takes `**data`): described by the signature
they declare with the bounds of their fields, built with their symbolic arguments kept, and
created at all when their annotations name the builtin types project code sees."""

from typing import Optional

import pytest

from lacuna_agent import describe, interpose, values
from lacuna_agent.sym import Sym, SymInt

pydantic = pytest.importorskip("pydantic")


class Address(pydantic.BaseModel):
    postcode: str = pydantic.Field(min_length=4, max_length=8)


class Member(pydantic.BaseModel):
    name: str
    age: int = pydantic.Field(gt=0, le=150)
    address: Optional[Address] = None


def project(cls):
    return cls in (Address, Member)


def test_a_model_is_described_by_its_fields_with_their_bounds():
    init = describe._describe_class(Member, project, 0)["init"]
    assert [(p["name"], p["kind"], p["type"]["kind"], p.get("domain")) for p in init] == [
        ("name", "keyword_only", "str", None),
        ("age", "keyword_only", "int", {"min": 1, "max": 150}),
        ("address", "keyword_only", "optional", None),
    ]
    address = init[2]["type"]["of"]
    assert address["init"][0]["domain"] == {"min_length": 4, "max_length": 8}


def test_a_built_model_keeps_its_symbolic_fields():
    age = SymInt(30, ["var", "member.__init__.age", "int"])
    member = Member(name="ann", age=age)
    assert not isinstance(member.__dict__["age"], Sym)  # pydantic stores a plain int
    values._keep_symbols(member, {"name": "ann", "age": age})
    assert member.age is age and member.age == 30
    assert member.name == "ann" and not isinstance(member.__dict__["name"], Sym)


def test_a_model_annotated_with_the_builtins_project_code_sees_is_created():
    namespace = {"__builtins__": interpose.builtins_for("shop"), "BaseModel": pydantic.BaseModel}
    exec("class Score(BaseModel):\n    points: int\n    label: str = 'x'\n", namespace)  # noqa: S102
    score = namespace["Score"](points=3)
    assert score.points == 3 and type(score.points) is int


def test_a_class_deriving_from_a_builtin_and_another_metaclass_is_created():
    import enum

    namespace = {"__builtins__": interpose.builtins_for("shop"), "Enum": enum.Enum}
    exec("class Color(str, Enum):\n    RED = 'red'\n\n"  # noqa: S102
         "class Size(int, Enum):\n    S = 1\n\n"
         "class Name(str):\n    pass\n", namespace)
    color, size, name = namespace["Color"], namespace["Size"], namespace["Name"]
    assert color.RED == "red" and color.__mro__[1] is str
    assert size.S == 1 and size.__mro__[1] is int
    assert name.__mro__[1] is str and isinstance(name("a"), str)


def test_a_constraint_with_two_bounds_gives_both():
    annotated_types = pytest.importorskip("annotated_types")
    assert describe._bound(annotated_types.Len(4, 8), "str") == {"min_length": 4, "max_length": 8}
    assert describe._bound(annotated_types.Interval(ge=0, le=150), "int") == {"min": 0, "max": 150}
    assert describe._bound(annotated_types.Interval(gt=0, lt=10), "int") == {"min": 1, "max": 9}
    assert describe._bound(annotated_types.Gt(3), "int") == {"min": 4}
    assert describe._bound(annotated_types.Gt(3), "str") is None
