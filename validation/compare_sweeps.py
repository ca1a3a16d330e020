#!/usr/bin/env python3
"""Point-by-point change between two `moeplan-moe-bench sweep` files.

For each weight format: over the points with at most 64 rows per active expert that both files timed
on the streaming path, the change in the weaker GEMM's fraction of copy bandwidth (as moeplan-validate's
decode floor reads it), as mean, lowest and highest.

    python3 validation/compare_sweeps.py OLD.json NEW.json
    git show 1d160ab:validation/data/moe_sweep_h200.json > old.json   # a committed file as OLD
"""
import json
import statistics
import sys

DECODE_MOST_ROWS = 64


def weaker_streaming_gemm(path):
    """{(model, local experts, tokens, weights): (rows per active expert, weaker GEMM's fraction)}."""
    points = {}
    for point in json.load(open(path))["points"]:
        streaming = point["gemm_paths"].get("streaming")
        if streaming is None:
            continue
        key = (point["model"], point["local_routed_experts"], point["tokens"], point["weights"])
        fraction = min(streaming["gate_up"]["copy_bandwidth_fraction"], streaming["down"]["copy_bandwidth_fraction"])
        points[key] = (point["rows"] / point["active_experts"], fraction)
    return points


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_sweeps.py OLD.json NEW.json")
    old, new = weaker_streaming_gemm(sys.argv[1]), weaker_streaming_gemm(sys.argv[2])
    for weights in sorted({key[3] for key in new}):
        changes = [new[key][1] - old[key][1] for key in new
                   if key[3] == weights and key in old and new[key][0] <= DECODE_MOST_ROWS]
        if not changes:
            print(f"{weights}: no decode point in both files")
            continue
        print(f"{weights}: {len(changes)} decode points, weaker GEMM {statistics.mean(changes):+.3f} on average "
              f"({min(changes):+.3f} to {max(changes):+.3f})")


if __name__ == "__main__":
    main()
