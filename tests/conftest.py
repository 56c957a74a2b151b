"""Test-session setup: float64 is tested alongside float32, so x64 is on for the whole session.

Behaviour with x64 off is tested in subprocesses (tests/test_core_x64.py).
"""
import jax

jax.config.update("jax_enable_x64", True)
