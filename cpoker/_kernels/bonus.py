"""Kernels that price a split's scoring bonus (a scoop, a majority of rows) and its card-removal correction.

The bonus is read off the joint distribution of the opponent's three rows by multilinear interpolation
(:func:`joint_below`); :func:`joint_slope` and :func:`bonus_ceiling` bound it for the search.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.removal import N_SHAPES, hand_correction
from cpoker._kernels.subsets import REST_SLACK


@jit
def joint_below(joint, side, u, v, w):
    """The probability that an opponent's three rows all lie below coordinates ``(u, v, w)`` (front, middle, back).

    ``joint[side]`` (:mod:`cpoker.strategies.policy.joint`) is the joint distribution function
    of the opponent's rows' coordinates on a grid of ``cells + 1`` points per
    axis, read here by multilinear interpolation.  Side 0: a row's
    coordinate is the share of rows strictly weaker than it, so a row of
    ours whose win probability is ``u`` beats exactly the opponent's rows
    below ``u``, and ``joint_below(joint, 0, wins...)`` is the probability
    of winning all three rows; side 1 the same with the share strictly
    stronger and the losses.  Interpolating a distribution function on a
    grid gives the distribution function of the grid cells' mass spread
    evenly in each cell: a probability, non-decreasing in every coordinate.
    The one-cell grid ``[[[0, 0], [0, 0]], [[0, 0], [0, 1]]]`` is
    ``u * v * w``: rows drawn independently.  Scalars and one array read
    in place: inlined in the loops that call it.
    """
    cells = joint.shape[1] - 1
    x = u * cells
    y = v * cells
    z = w * cells
    i = min(int(x), cells - 1)
    j = min(int(y), cells - 1)
    k = min(int(z), cells - 1)
    x -= i
    y -= j
    z -= k
    low_low = joint[side, i, j, k] + z * (joint[side, i, j, k + 1] - joint[side, i, j, k])
    low_high = joint[side, i, j + 1, k] + z * (joint[side, i, j + 1, k + 1] - joint[side, i, j + 1, k])
    high_low = joint[side, i + 1, j, k] + z * (joint[side, i + 1, j, k + 1] - joint[side, i + 1, j, k])
    high_high = joint[side, i + 1, j + 1, k] + z * (joint[side, i + 1, j + 1, k + 1] - joint[side, i + 1, j + 1, k])
    low = low_low + y * (low_high - low_low)
    return low + x * (high_low + y * (high_high - high_low) - low)


@jit
def joint_slope(joint):
    """The steepest rise of :func:`joint_below` along any one coordinate, either side.

    The largest mass of one slab of cells (all cells of one index along one
    axis) times the cells per axis: the interpolated distribution's largest
    marginal density, which bounds how fast the probability of winning (losing)
    all three rows, or two of them, moves with one coordinate.  1 for the
    independent rows' one-cell grid, where it is a product of probabilities.
    """
    cells = joint.shape[1] - 1
    slope = 0.0
    for side in range(2):
        for i in range(cells):
            slope = max(slope, joint[side, i + 1, cells, cells] - joint[side, i, cells, cells],
                        joint[side, cells, i + 1, cells] - joint[side, cells, i, cells],
                        joint[side, cells, cells, i + 1] - joint[side, cells, cells, i])
    return slope * cells


@jit
def rows_bonus(win_front, win_middle, win_back, loss_front, loss_middle, loss_back, scoop, majority, joint):
    """Expected scoring bonus of a split whose rows win and lose with these probabilities.

    ``scoop`` units are paid for three wins (and paid out for three losses),
    ``majority`` units for two wins or more (paid out for two losses or more):
    1-6 scoring is ``scoop=3``, 2-4 scoring ``majority=1``.  How an
    opponent's rows go together is ``joint`` (:func:`joint_below`;
    the one-cell grid: independently).  Increasing in every win probability
    and decreasing in every loss probability, since these are probabilities
    of one distribution, so its value at the strongest rows a split can have
    bounds every such split.  Scalars and one array read in place: inlined
    in the loops that call it.
    """
    three_wins = joint_below(joint, 0, win_front, win_middle, win_back)
    three_losses = joint_below(joint, 1, loss_front, loss_middle, loss_back)
    value = 0.0
    if scoop != 0.0:
        value += scoop * (three_wins - three_losses)
    if majority != 0.0:
        two_wins = (joint_below(joint, 0, win_front, win_middle, 1.0) + joint_below(joint, 0, win_front, 1.0, win_back)
                    + joint_below(joint, 0, 1.0, win_middle, win_back) - 2.0 * three_wins)
        two_losses = (joint_below(joint, 1, loss_front, loss_middle, 1.0)
                      + joint_below(joint, 1, loss_front, 1.0, loss_back)
                      + joint_below(joint, 1, 1.0, loss_middle, loss_back) - 2.0 * three_losses)
        value += majority * (two_wins - two_losses)
    return value


@jit
def bonus_ceiling(win_front, win_middle, win_back, scoop, majority, slope):
    """An upper bound of :func:`rows_bonus` from the win probabilities alone, for a grid of steepest slope ``slope``.

    Each row's chance of winning is at most ``slope`` times its win probability (the grid's marginal
    density is at most ``slope``); three wins are no likelier than the least likely one, and two or more
    no likelier than half the expected number of wins; the losses only subtract.  Five operations where the
    bonus reads the grid eight to thirty-two times: the search skips the bonus of a split that cannot
    reach the best value even with this (most splits of a searched back).
    """
    ceiling = 0.0
    if scoop != 0.0:
        ceiling += scoop * slope * min(win_front, win_middle, win_back)
    if majority != 0.0:
        ceiling += majority * min(1.0, 0.5 * slope * (win_front + win_middle + win_back))
    return ceiling


@jit
def rows_bonus_many(win_front, win_middle, win_back, loss_front, loss_middle, loss_back, scoop, majority, joint, out):
    """``out[i]``: :func:`rows_bonus` of the ``i``-th entry of each array (the Python side's split values and
    bounds, by the kernels' very formula)."""
    for i in range(out.shape[0]):
        out[i] = rows_bonus(win_front[i], win_middle[i], win_back[i], loss_front[i], loss_middle[i], loss_back[i],
                            scoop, majority, joint)


# added to every bound that includes the bonus: its interpolation's arithmetic can round an ulp against monotonicity
BONUS_SLACK = 1e-9


@jit
def corrected_row(row_values, row_wins, row_losses, corrections, buckets, row, strength):
    """A row's value, win and loss probabilities with the hand's card-removal correction (see :func:`hand_removal`).

    The probabilities are kept within [0, 1], where the scoring bonus is increasing in the wins and
    decreasing in the losses (the bounds rely on it).  Under a scoring bonus only: the corrections then hold
    the wins' and losses' too.
    """
    shape = buckets[strength]
    value = row_values[row, strength] + corrections[row * N_SHAPES + shape]
    win = min(max(row_wins[row, strength] + corrections[(3 + row) * N_SHAPES + shape], 0.0), 1.0)
    loss = min(max(row_losses[row, strength] + corrections[(6 + row) * N_SHAPES + shape], 0.0), 1.0)
    return value, win, loss


@jit
def hand_removal(hand_mask, removal_terms, buckets, scoop, majority, joint, index5, index3, front_values, corrections):
    """Correct a hand's rows for the cards it holds: ``(corrected, all_slack, value_slack, rises...)``.

    Without a correction (one row of ``removal_terms``) nothing is done: ``(False, 0, 0, 0, 0, 0, 0)``.
    Otherwise fills ``corrections`` with the hand's correction of each correction shape
    (:func:`.removal.hand_correction`), adds the front's to ``front_values``, and bounds what the correction
    adds to a split, for the cheap bounds by strength: the largest correction of a back, a middle and a
    front the hand can make (``all_slack``); under a scoring bonus, moving a win or a loss probability by
    ``d`` moves the bonus by at most ``d`` times :func:`joint_slope` per unit (1 for independent rows, whose
    product has partial derivatives in [0, 1]), so the slack grows by that times the largest rise of each
    row's wins and fall of its losses.  The last five are those parts, for the tight bounds
    (:func:`tight_bound`): ``value_slack``, the largest middle plus front value correction, and the largest
    rise of the front's and the middle's wins and fall of their losses (0 or more).
    """
    if removal_terms.shape[0] <= 1:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    hand_correction(hand_mask, removal_terms, corrections)
    has_bonus = scoop != 0.0 or majority != 0.0
    best_front = -np.inf
    front_rise = 0.0
    front_fall = 0.0
    for i in range(index3.shape[0]):
        shape = buckets[index3[i]]
        front_values[i] += corrections[shape]
        best_front = max(best_front, corrections[shape])
        if has_bonus:
            front_rise = max(front_rise, corrections[3 * N_SHAPES + shape])
            front_fall = max(front_fall, -corrections[6 * N_SHAPES + shape])
    best_middle = -np.inf
    best_back = -np.inf
    middle_rise = 0.0
    middle_fall = 0.0
    back_rise = 0.0
    back_fall = 0.0
    for i in range(index5.shape[0]):
        shape = buckets[index5[i]]
        best_middle = max(best_middle, corrections[N_SHAPES + shape])
        best_back = max(best_back, corrections[2 * N_SHAPES + shape])
        if has_bonus:
            middle_rise = max(middle_rise, corrections[4 * N_SHAPES + shape])
            back_rise = max(back_rise, corrections[5 * N_SHAPES + shape])
            middle_fall = max(middle_fall, -corrections[7 * N_SHAPES + shape])
            back_fall = max(back_fall, -corrections[8 * N_SHAPES + shape])
    bonus = ((scoop + majority) * joint_slope(joint)
             * (front_rise + middle_rise + back_rise + front_fall + middle_fall + back_fall))
    value_slack = best_middle + best_front + REST_SLACK
    return True, best_back + value_slack + bonus, value_slack, front_rise, middle_rise, front_fall, middle_fall
