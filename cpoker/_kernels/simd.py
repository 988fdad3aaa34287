"""What the vector kernels share: whether numba compiles for a processor with some features, and the frame of
an intrinsic that evaluates a group of rows of card ids (:mod:`.avx512`, :mod:`.avx2`)."""

from __future__ import annotations

import cpoker.system.jit  # noqa: F401  (first: it checks the environment before numba loads)
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


def compiles_with(features: tuple) -> bool:
    """Whether numba compiles for a processor with every one of LLVM's ``features`` (the host's, unless
    ``NUMBA_CPU_NAME`` or ``NUMBA_CPU_FEATURES`` name another)."""
    import llvmlite.binding as llvm
    from numba.core import config

    if config.CPU_FEATURES is not None:
        flags = config.CPU_FEATURES
    elif config.CPU_NAME is not None:  # a named processor's own features are not known here: play safe
        return False
    else:
        flags = llvm.get_host_cpu_features().flatten()
    enabled: set = set()
    for flag in flags.split(","):  # in order: LLVM lets a later flag undo an earlier one
        if flag[:1] == "+":  # and a feature turned on turns on what it needs ...
            enabled |= _with_needs(flag[1:])
        elif flag[:1] == "-":  # ... and one turned off what needs it: "-avx2" takes AVX-512 with it
            enabled -= {feature for feature in enabled if flag[1:] in _with_needs(feature)}
    return all(feature in enabled for feature in features)


# the features each one needs (LLVM's implications, for those cpoker uses)
_NEEDS = {"avx2": ("avx",), "avx512f": ("avx2",), "avx512bw": ("avx512f",), "avx512vbmi": ("avx512bw",)}


def _with_needs(feature: str) -> set:
    """``feature`` and every feature it needs, as LLVM turns them on with it."""
    return {feature}.union(*(_with_needs(needed) for needed in _NEEDS.get(feature, ())))


def row_group_intrinsic(width: int, codegen):
    """An intrinsic ``rank_keys(ids, row, out)`` for C-contiguous ``(N, width)`` ``uint8`` card ids and a
    C-contiguous ``int32`` ``out``, returning an ``int64``: ``codegen(builder, start, keys_out, row)`` emits its
    body, given pointers to row ``row``'s first card id and to ``out``'s data, and returns its result."""

    @intrinsic
    def rank_keys(typingctx, ids, row, out):
        if not (isinstance(ids, types.Array) and ids.dtype == types.uint8 and ids.layout == "C"
                and isinstance(out, types.Array) and out.dtype == types.int32 and out.layout == "C"
                and isinstance(row, types.Integer)):
            return None
        sig = types.int64(ids, types.intp, out)

        def lower(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            keys_out = context.make_array(signature.args[2])(context, builder, args[2]).data
            row = args[1]
            start = builder.gep(data, [builder.mul(row, ir.Constant(row.type, width))])
            return codegen(builder, start, keys_out, row)

        return sig, lower

    return rank_keys
