"""Fixtures for the AscendC simulator tests."""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
