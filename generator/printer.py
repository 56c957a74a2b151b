"""Print rule expressions as JAX code: elementary functions as ``jnp``/``jsp``, spec'd calls as variables."""
from __future__ import annotations

import sympy
from sympy.logic.boolalg import BooleanFunction
from sympy.printing.numpy import JaxPrinter, NumPyPrinter


class SafeValue(sympy.Function):
    """``SafeValue(x, c)`` is ``x`` away from ``c`` and ``c + 1`` at it (``sign(c)`` at c = ±inf).

    The branch of a ``where`` that is not taken at a removable singularity is still differentiated in
    reverse mode; evaluating it at a harmless point keeps ``0 * inf`` from turning cotangents into NaN.
    """

    nargs = 2


class Mask(sympy.Function):
    """``Mask(x, c)`` equals ``c`` everywhere, but follows ``x`` (value and derivatives) where ``x == c``.

    Evaluations needed only at a special point are made at that point, where SciPy is cheap, while
    their derivatives stay exact at the points that select them.
    """

    nargs = 2


class AtInfinity(BooleanFunction):
    """``AtInfinity(x, s)``: x is s * inf (s = 1 or -1), a special point at infinity's condition.

    sympy takes a real symbol to be finite and would make ``Eq(x, oo)`` False; and a comparison with
    float64's largest number would be false at float32's inf (the literal overflows there).
    """

    nargs = 2

    @classmethod
    def eval(cls, x, sign):
        if x.is_number:
            return sympy.true if x == sign * sympy.oo else sympy.false
        return None


# SciPy-compatible special functions JAX implements natively, usable in rule formulas.
_JAX_SCIPY_SPECIAL = {"gamma": "gamma", "loggamma": "gammaln", "digamma": "digamma", "polygamma": "polygamma",
                      "erf": "erf", "erfc": "erfc"}


class PrintError(Exception):
    pass


class JaxsciPrinter(JaxPrinter):
    """Strict: an expression it cannot print exactly is an error, never partial code."""

    def __init__(self, names: dict | None = None):
        super().__init__({"strict": True, "fully_qualified_modules": True})
        self.names = names or {}

    def _module_format(self, fqn, register=True):
        if fqn.startswith("jax.numpy."):
            return "jnp." + fqn[len("jax.numpy."):]
        if fqn.startswith("jax.scipy.special."):
            return "jsp." + fqn[len("jax.scipy.special."):]
        return super()._module_format(fqn, register)

    def doprint(self, expr, assign_to=None):
        try:
            code = super().doprint(expr, assign_to)
        except sympy.printing.codeprinter.PrintMethodNotImplementedError as exc:
            raise PrintError(str(exc).splitlines()[0]) from None
        # generated modules import jax.numpy as jnp and jax.scipy.special as jsp, nothing else
        foreign = set(self.module_imports) - {"jax.numpy", "jax.scipy.special", "jnp", "jsp"}
        if foreign:
            raise PrintError(f"printing {expr} needs module(s) {sorted(foreign)}")
        return code

    def _print_Max(self, expr):
        return self._nested("jax.numpy.maximum", expr.args)

    def _print_Min(self, expr):
        return self._nested("jax.numpy.minimum", expr.args)

    def _print_And(self, expr):
        return self._nested("jax.numpy.logical_and", sorted(expr.args, key=str))

    def _print_Or(self, expr):
        return self._nested("jax.numpy.logical_or", sorted(expr.args, key=str))

    def _print_Not(self, expr):
        return f"{self._module_format('jax.numpy.logical_not')}({self._print(expr.args[0])})"

    def _nested(self, function, args):
        name = self._module_format(function)
        code = self._print(args[-1])
        for arg in reversed(args[:-1]):
            code = f"{name}({self._print(arg)}, {code})"
        return code

    def _print_Symbol(self, expr):
        return self.names.get(expr.name, expr.name)

    def _print_AppliedUndef(self, expr):
        raise PrintError(f"cannot print {expr} as JAX code")

    def _print_Function(self, expr):
        name = type(expr).__name__
        if name in _JAX_SCIPY_SPECIAL:
            args = ", ".join(self._print(a) for a in expr.args)
            return f"{self._module_format('jax.scipy.special.' + _JAX_SCIPY_SPECIAL[name])}({args})"
        raise PrintError(f"no JAX equivalent for {name}")

    _print_gamma = _print_loggamma = _print_digamma = _print_polygamma = _print_erf = _print_erfc = _print_Function

    def _print_conjugate(self, expr):
        return f"{self._module_format('jax.numpy.conj')}({self._print(expr.args[0])})"

    def _print_KroneckerDelta(self, expr):
        a, b = (self._print(x) for x in expr.args)
        return f"{self._module_format('jax.numpy.where')}({a} == {b}, 1, 0)"

    def _print_SafeValue(self, expr):
        x, c = expr.args
        harmless = c + 1 if c.is_finite else sympy.sign(c)  # at infinity, a finite stand-in of its sign
        return f"{self._module_format('jax.numpy.where')}({self._print(x)} == {self._print(c)}, {self._print(harmless)}, {self._print(x)})"

    def _print_AtInfinity(self, expr):
        x, sign = expr.args
        return f"({self._print(x)} == {'' if sign > 0 else '-'}{self._module_format('jax.numpy.inf')})"

    def _print_Mask(self, expr):
        x, c = (self._print(a) for a in expr.args)
        return f"{self._module_format('jax.numpy.where')}({x} == {c}, {x}, {c})"

    def _print_Shift(self, expr):
        value, _, offset, axis = expr.args
        return f"_core.coredims.shift({self._print(value)}, {int(axis)}, {int(offset)})"

    def _print_Piecewise(self, expr):
        where = self._module_format("jax.numpy.where")
        *branches, (last, last_cond) = expr.args
        if last_cond != sympy.true:
            raise PrintError("a Piecewise must end with an otherwise-branch (condition True)")
        code = self._print(last)
        for value, cond in reversed(branches):
            code = f"{where}({self._print(cond)}, {self._print(value)}, {code})"
        return code

    def _print_Relational(self, expr):
        ops = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
        return f"({self._print(expr.lhs)} {ops[expr.rel_op]} {self._print(expr.rhs)})"

    def _print_Infinity(self, expr):
        return self._module_format("jax.numpy.inf")

    def _print_NegativeInfinity(self, expr):
        return "-" + self._module_format("jax.numpy.inf")

    def _print_ComplexInfinity(self, expr):
        raise PrintError("complex infinity (zoo, as from a division by zero) has no JAX value")

    def _print_NaN(self, expr):
        return self._module_format("jax.numpy.nan")


class GuardPrinter(NumPyPrinter):
    """A guard's condition as numpy code, evaluated on the host over SciPy's own operands.

    Strict like ``JaxsciPrinter``: the loader admits only comparisons joined by And/Or over the
    arguments, abs, floor, Min, Max and numbers, and anything else is an error, never partial code.
    """

    def __init__(self):
        super().__init__({"strict": True, "fully_qualified_modules": True})

    def _module_format(self, fqn, register=True):
        if fqn.startswith("numpy."):
            return "np." + fqn[len("numpy."):]
        raise PrintError(f"a guard may use numpy only, not {fqn}")

    def doprint(self, expr, assign_to=None):
        try:
            return super().doprint(expr, assign_to)
        except sympy.printing.codeprinter.PrintMethodNotImplementedError as exc:
            raise PrintError(str(exc).splitlines()[0]) from None

    def _print_And(self, expr):
        return self._nested("np.logical_and", sorted(expr.args, key=str))

    def _print_Or(self, expr):
        return self._nested("np.logical_or", sorted(expr.args, key=str))

    def _nested(self, name, args):
        code = self._print(args[-1])
        for arg in reversed(args[:-1]):
            code = f"{name}({self._print(arg)}, {code})"
        return code

    def _print_Relational(self, expr):
        ops = {"==": "==", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
        if expr.rel_op not in ops:
            raise PrintError(f"a guard cannot use {expr.rel_op} (NaN would pass it)")
        return f"({self._print(expr.lhs)} {ops[expr.rel_op]} {self._print(expr.rhs)})"

    def _print_Abs(self, expr):
        return f"np.abs({self._print(expr.args[0])})"

    def _print_Max(self, expr):
        return self._nested("np.maximum", list(expr.args))

    def _print_Min(self, expr):
        return self._nested("np.minimum", list(expr.args))

    def _print_Infinity(self, expr):
        return "np.inf"

    def _print_NegativeInfinity(self, expr):
        return "-np.inf"

    def _print_Not(self, expr):
        raise PrintError("a guard cannot use Not (NaN would pass it)")

    def _print_Float(self, expr):
        return repr(float(expr))  # the float64 the host compares with, in its shortest form
