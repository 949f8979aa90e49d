"""Stage: check that a cited span supports its claim."""

from citegraph.verify.base import UncheckedVerifier, Verifier

__all__ = ["UncheckedVerifier", "Verifier"]
