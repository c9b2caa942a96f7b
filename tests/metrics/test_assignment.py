"""metrik-2's assignment solver returns scipy's assignment, ties and near-ties included.

scipy's ``linear_sum_assignment`` is the oracle. Ties are where two solvers part: the matrices
here draw their entries from a few values (as metrik-2's costs repeat: 0, 1, 0.3, 0.25 ...),
or from values one rounding apart, and are padded with rows or columns of 1.0 as metrik-2 pads.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from dmbench.metrics._assignment import optimal_assignment

TIED_VALUES = [0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 1.0, 1 / 3, 0.1 + 0.2, 0.30000000000000004]


def scipys(matrix: list[list[float]]) -> list[int]:
    rows, columns = linear_sum_assignment(np.array(matrix, dtype=float).reshape(len(matrix), -1))
    assert rows.tolist() == list(range(len(matrix)))
    return columns.tolist()


@st.composite
def padded_matrices(draw: st.DrawFn, values: st.SearchStrategy[float]) -> list[list[float]]:
    """A block of costs in the corner of a square of 1.0, as metrik-2 builds its matrices."""
    rows = draw(st.integers(1, 7))
    columns = draw(st.integers(1, 7))
    size = max(rows, columns)
    block = draw(
        st.lists(st.lists(values, min_size=columns, max_size=columns), min_size=rows, max_size=rows)
    )
    return [
        [block[i][j] if i < rows and j < columns else 1.0 for j in range(size)] for i in range(size)
    ]


@settings(max_examples=1500, deadline=None)
@given(padded_matrices(st.sampled_from(TIED_VALUES)))
def test_tied_matrices_are_assigned_as_scipy_assigns_them(matrix: list[list[float]]) -> None:
    assert optimal_assignment(matrix) == scipys(matrix)


@settings(max_examples=500, deadline=None)
@given(padded_matrices(st.floats(0.0, 1.0)))
def test_any_matrix_is_assigned_as_scipy_assigns_it(matrix: list[list[float]]) -> None:
    assert optimal_assignment(matrix) == scipys(matrix)


def test_every_two_by_two_of_tied_values_is_assigned_as_scipy_assigns_it() -> None:
    """The unrolled two-row case, on all 14,641 matrices over the tied values."""
    for a, b, c, d in itertools.product(TIED_VALUES, repeat=4):
        matrix = [[a, b], [c, d]]
        assert optimal_assignment(matrix) == scipys(matrix), matrix


def test_the_assignment_is_optimal_not_just_scipys() -> None:
    """A plain check that does not lean on the oracle: a 3x3 whose best is the anti-diagonal."""
    matrix = [[5.0, 4.0, 1.0], [4.0, 1.0, 4.0], [1.0, 4.0, 5.0]]
    assert optimal_assignment(matrix) == [2, 1, 0]
