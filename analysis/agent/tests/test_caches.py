"""The `functools.lru_cache` wrappers of a project module, found so that each execution starts
with empty caches: in its functions and in the methods of its classes, however its classes name
each other."""

import types

from lacuna_agent import interpose

SOURCE = '''
import functools


@functools.lru_cache(maxsize=None)
def table():
    return {}


class Environment:
    template_class = None

    @functools.lru_cache(maxsize=None)
    def name(self):
        return "env"

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def shared():
        return []


class Template:
    environment_class = Environment


Environment.template_class = Template
Template.itself = Template
'''


def module_of(source):
    module = types.ModuleType("tmpl")
    exec(compile(source, "tmpl.py", "exec"), module.__dict__)
    return module


def test_classes_that_name_each_other_are_visited_once():
    module = module_of(SOURCE)
    found = interpose.caches_of(module.__dict__)
    assert sorted(c.__wrapped__.__qualname__ for c in found) == [
        "Environment.name", "Environment.shared", "table"]
