"""Exceptions jaxsci raises to users."""


class NonDifferentiableError(TypeError):
    """A tangent reached an argument that has no derivative rule.

    jaxsci never returns a silent zero for such an argument: differentiate with respect to the other
    arguments, or wrap the argument in ``jax.lax.stop_gradient`` if its derivative is truly not needed.
    """

    def __init__(self, function: str, argument: str, reason: str):
        self.function, self.argument, self.reason = function, argument, reason
        super().__init__(
            f"{function}: cannot differentiate with respect to argument {argument!r}: {reason}. "
            f"Differentiate only with respect to the other arguments, or pass "
            f"jax.lax.stop_gradient({argument}) if you do not need this derivative."
        )


class ExportError(NotImplementedError):
    """A function that calls jaxsci cannot be serialized by ``jax.export`` (see ``jaxsci.export``)."""


class TransportWarning(RuntimeWarning):
    """jaxsci's buffer-callback core does not work with the installed jax: it uses ``jax.pure_callback``."""
