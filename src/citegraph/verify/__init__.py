"""Stage: check that a cited span supports its claim."""

from citegraph.verify.base import PairCheck, UncheckedVerifier, Verifier

__all__ = ["PairCheck", "UncheckedVerifier", "Verifier"]
