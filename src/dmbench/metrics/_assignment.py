"""The optimal assignment of a square cost matrix, choosing among equal optima as scipy does.

Metrik-2 solves its assignments with ``scipy.optimize.linear_sum_assignment``, and which of
several optimal assignments comes back shows in its scores: the attribute penalty follows the
class assignment, and costs summed in another order can round differently. This is the same
kind of solver, shortest augmenting paths with dual values (Jonker & Volgenant 1987, in the
form Crouse 2016 gives for rectangular matrices), making the same choices: rows join in order,
each search scans the columns not yet reached starting from the last one (a reached column's
place is taken by the last in the list), a tie for the cheapest column goes to an unassigned
one, and every reduced cost and dual update is the same floating-point expression. So the
assignment is scipy's; ``tests/metrics/test_assignment.py`` keeps scipy as the oracle. It spares the
cold first pass the import of ``scipy.optimize`` (half a second) and a numpy array per matrix,
most of which have two to four rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

_UNASSIGNED = -1
_INFINITY = math.inf


def optimal_assignment(cost: Sequence[Sequence[float]]) -> list[int]:
    """The column assigned to each row of the square matrix ``cost`` (finite entries)."""
    size = len(cost)
    if size == 2:
        return _two_by_two(cost)
    row_duals = [0.0] * size
    column_duals = [0.0] * size
    column_of_row = [_UNASSIGNED] * size
    row_of_column = [_UNASSIGNED] * size
    first_searched = _assign_directly(cost, row_duals, column_of_row, row_of_column)
    for new_row in range(first_searched, size):
        # Cheapest path, in reduced costs, from ``new_row`` to an unassigned column.
        distance = [_INFINITY] * size
        previous_row = [_UNASSIGNED] * size
        unreached = list(range(size - 1, -1, -1))
        reached_rows: list[int] = []
        reached_columns: list[int] = []
        shortest = 0.0
        row = new_row
        end = _UNASSIGNED
        while end == _UNASSIGNED:
            reached_rows.append(row)
            costs, row_dual = cost[row], row_duals[row]
            lowest, chosen = _INFINITY, 0
            for place, column in enumerate(unreached):
                reduced = shortest + costs[column] - row_dual - column_duals[column]
                found = distance[column]
                if reduced < found:
                    distance[column] = found = reduced
                    previous_row[column] = row
                if found < lowest or (found == lowest and row_of_column[column] == _UNASSIGNED):
                    lowest, chosen = found, place
            shortest = lowest
            column = unreached[chosen]
            reached_columns.append(column)
            unreached[chosen] = unreached[-1]
            unreached.pop()
            if row_of_column[column] == _UNASSIGNED:
                end = column
            else:
                row = row_of_column[column]
        row_duals[new_row] += shortest
        for row in reached_rows[1:]:
            row_duals[row] += shortest - distance[column_of_row[row]]
        for column in reached_columns:
            column_duals[column] -= shortest - distance[column]
        column = end
        while column != _UNASSIGNED:
            row = previous_row[column]
            row_of_column[column] = row
            column_of_row[row], column = column, column_of_row[row]
    return column_of_row


def _assign_directly(
    cost: Sequence[Sequence[float]],
    row_duals: list[float],
    column_of_row: list[int],
    row_of_column: list[int],
) -> int:
    """The search's first rows while each one ends at once, done with built-ins; the first row
    left to search.

    As long as no path has been augmented, the column duals are all zero, so a new row's reduced
    costs are its costs and the search's first step picks the cheapest column, preferring among
    the equally cheap an unassigned one, and among those the lowest index (the last it scans).
    If that column is unassigned, the search ends there, the row's dual becomes that cost and
    the column duals stay zero; otherwise the general search takes over from this row.
    """
    for row, costs in enumerate(cost):
        lowest = min(costs)
        column = costs.index(lowest)
        while row_of_column[column] != _UNASSIGNED:
            try:
                column = costs.index(lowest, column + 1)
            except ValueError:
                return row
        row_duals[row] += lowest
        column_of_row[row] = column
        row_of_column[column] = row
    return len(cost)


def _two_by_two(cost: Sequence[Sequence[float]]) -> list[int]:
    """The general search unrolled for two rows (most of metrik-2's matrices): the first row
    takes its cheaper column (the first on a tie); the second takes the other column unless the
    comparisons the search makes, in its own floating-point expressions, favour exchanging."""
    (a, b), (c, d) = cost
    if a <= b:
        exchange = c < d and c + b - a < d
    else:
        exchange = not (c > d and d + a - b < c)
    return [1, 0] if exchange else [0, 1]
