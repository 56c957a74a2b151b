"""Errors the generator reports as ``path:line: message``."""
from __future__ import annotations


class SpecError(Exception):
    """A problem in a spec file, located at ``path:line``."""

    def __init__(self, path: str, line: int | None, message: str):
        message = " ".join(part.strip() for part in message.splitlines() if part.strip())  # one line, always
        super().__init__(message)
        self.path = path
        self.line = line
        self.message = message

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class SpecErrors(SpecError):
    """Several spec errors, reported together so one run shows them all.

    A ``SpecError`` itself (located at the first of them), so code that expects one error still works.
    """

    def __init__(self, errors: list[SpecError]):
        first = errors[0]
        super().__init__(first.path, first.line, first.message)
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)
