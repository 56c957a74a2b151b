"""Strict YAML reading: duplicate keys are errors, and every value remembers its line.

Built on PyYAML's node composer so that positions come from the parser, not from
searching the text.
"""
from __future__ import annotations

import re

import yaml

from .errors import SpecError

# YAML 1.1's line breaks, which PyYAML counts when it numbers lines.
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


class LocatedDict(dict):
    """A mapping that knows its own line and the line of each value."""

    line: int
    key_lines: dict
    value_lines: dict


class LocatedList(list):
    """A sequence that knows its own line and the line of each item."""

    line: int
    item_lines: list


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


class _StrictLoader(yaml.SafeLoader):
    pass


# libyaml's parser, where PyYAML has it, reads valid specs about twice as fast (the suite and every
# generator run read all of them); its errors are less precise, so a document it rejects is read again
# by the Python parser, whose message and line are reported.
_LIBYAML = hasattr(yaml, "CSafeLoader")


class _FastStrictLoader(yaml.CSafeLoader if _LIBYAML else yaml.SafeLoader):
    pass


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    result = LocatedDict()
    result.line = _line(node)
    result.key_lines = {}
    result.value_lines = {}
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            hint = " (quote it: YAML reads 1.20 as the number 1.2)" if isinstance(key, float) else ""
            raise SpecError(loader.spec_path, _line(key_node), f"keys must be strings, got {key!r}{hint}")
        if key in result:
            raise SpecError(
                loader.spec_path,
                _line(key_node),
                f"duplicate key {key!r} (first given on line {result.key_lines[key]})",
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = _line(key_node)
        result.value_lines[key] = _line(value_node)
    return result


def _construct_sequence(loader: _StrictLoader, node: yaml.SequenceNode, deep: bool = False):
    result = LocatedList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = _line(node)
    result.item_lines = [_line(child) for child in node.value]
    return result


for _loader in (_StrictLoader, _FastStrictLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def line_at(text: str, index: int) -> int:
    """The line (from 1, as YAML counts them) of the character at ``index``."""
    return len(_LINE_BREAK.findall(text[:index])) + 1


def _last_line(text: str) -> int:
    """The number of the file's last line (a final line break does not start another one)."""
    return max(1, len(_LINE_BREAK.findall(text.rstrip("\r\n\x85\u2028\u2029"))) + 1)


def load_yaml(text: str, path: str):
    """Parse one YAML document; syntax errors become ``SpecError`` at the parser's line."""
    if _LIBYAML:
        loader = _FastStrictLoader(text)
        loader.spec_path = path
        try:
            document = loader.get_single_node()
            if document is not None:
                return loader.construct_document(document)
        except yaml.YAMLError:
            pass  # read again below, for the Python parser's message
        finally:
            loader.dispose()
    try:
        loader = _StrictLoader(text)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, found before parsing starts
        raise SpecError(path, line_at(text, exc.position), f"YAML syntax error: character U+{exc.character:04X} is not allowed in YAML") from None
    loader.spec_path = path
    try:
        document = loader.get_single_node()
        if document is None:
            raise SpecError(path, 1, "the file is empty; a spec is a YAML mapping")
        return loader.construct_document(document)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # the end of the stream is after the final line break: report it on the last line
        line = min(mark.line + 1, _last_line(text)) if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise SpecError(path, line, f"YAML syntax error: {problem}") from None
    except yaml.YAMLError as exc:
        raise SpecError(path, None, f"YAML error: {exc}") from None
    finally:
        loader.dispose()
