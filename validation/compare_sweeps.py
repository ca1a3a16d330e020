#!/usr/bin/env python3
"""Point-by-point change between two `moeplan-moe-bench sweep` files.

For each weight format: over the points with at most 64 rows per active expert that both files timed
on the streaming path, the change in the weaker GEMM's fraction of copy bandwidth (as moeplan-validate's
decode floor reads it), as mean, lowest and highest; with --points, every such point, before -> after,
largest fall first.

    python3 validation/compare_sweeps.py OLD.json NEW.json [--points]
    git show 1d160ab:validation/data/moe_sweep_h200.json > old.json   # a committed file as OLD
"""
import argparse
import json
import statistics
import sys

DECODE_MOST_ROWS = 64


def weaker_streaming_gemm(path):
    """{(model, local experts, tokens, weights): (rows per active expert, weaker GEMM's fraction)}."""
    try:
        with open(path) as file:
            sweep = json.load(file)
        points = {}
        for point in sweep["points"]:
            streaming = point["gemm_paths"].get("streaming")
            if streaming is None:
                continue
            key = (point["model"], point["local_routed_experts"], point["tokens"], point["weights"])
            fraction = min(streaming["gate_up"]["copy_bandwidth_fraction"],
                           streaming["down"]["copy_bandwidth_fraction"])
            points[key] = (point["rows"] / point["active_experts"], fraction)
        return points
    except (OSError, ValueError) as error:
        sys.exit(f"{path}: {error}")
    except (KeyError, TypeError) as error:
        sys.exit(f"{path}: not a moeplan-moe-bench sweep file (missing or malformed {error})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--points", action="store_true", help="list every decode point, largest fall first")
    arguments = parser.parse_args()
    old, new = weaker_streaming_gemm(arguments.old), weaker_streaming_gemm(arguments.new)
    for weights in sorted({key[3] for key in new}):
        keys = [key for key in new if key[3] == weights and key in old and new[key][0] <= DECODE_MOST_ROWS]
        if not keys:
            print(f"{weights}: no decode point in both files")
            continue
        changes = [new[key][1] - old[key][1] for key in keys]
        print(f"{weights}: {len(changes)} decode points, weaker GEMM {statistics.mean(changes):+.3f} on average "
              f"({min(changes):+.3f} to {max(changes):+.3f})")
        if arguments.points:
            for key in sorted(keys, key=lambda key: new[key][1] - old[key][1]):
                model, local, tokens, _ = key
                print(f"  {model} E_local {local} at {tokens} tokens ({new[key][0]:.0f} rows per slot): "
                      f"{old[key][1]:.3f} -> {new[key][1]:.3f} ({new[key][1] - old[key][1]:+.3f})")


if __name__ == "__main__":
    main()
