"""PyTorch peer of moeplan's fused-MoE path: the same layer (router, dispatch by expert,
torch._grouped_mm for w13 and w2 with SiLU-and-mul between, weighted combine), timed on the same
GPU over the same shapes and tokens per rank as `moeplan-moe-bench sweep`.

Usage: python3 moe_torch.py --out FILE [--ours SWEEP_JSON] [--tokens 1 2 4 ...]
With --ours, each point's whole-layer time is set beside moeplan's and the ratio recorded.
BF16 only: torch has no grouped GEMM for 128x128 block-scaled FP8 weights.
"""
import argparse
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

# DeepSeek-V3 routing [doc-001]; one fused shared expert [doc-000]; shapes from the model configs
# [deepseek-v3-config], [qwen3-235b-a22b-config], [mixtral-8x7b-config].
MODELS = [
    dict(name="DeepSeek-V3", hidden=7168, intermediate=2048, experts=256, top_k=8, groups=8, topk_groups=4,
         scoring="sigmoid", scale=2.5, fused_shared=1, local=[8, 16, 32, 64, 256]),
    dict(name="Qwen3-235B-A22B", hidden=4096, intermediate=1536, experts=128, top_k=8, groups=1, topk_groups=1,
         scoring="softmax", scale=1.0, fused_shared=0, local=[128]),
    dict(name="Mixtral-8x7B", hidden=4096, intermediate=14336, experts=8, top_k=2, groups=1, topk_groups=1,
         scoring="softmax", scale=1.0, fused_shared=0, local=[8]),
]
TOKENS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def grouped_topk(logits, bias, model):
    """[doc-001]: sigmoid scores, bias for selection only, groups by the sum of their top-2."""
    scores = logits.sigmoid()
    selection = scores + bias
    tokens = logits.shape[0]
    grouped = selection.view(tokens, model["groups"], -1)
    group_scores = grouped.topk(2, dim=-1).values.sum(dim=-1)
    kept = group_scores.topk(model["topk_groups"], dim=-1).indices
    mask = torch.zeros_like(group_scores).scatter_(1, kept, 1.0).unsqueeze(-1).expand_as(grouped).reshape(tokens, -1)
    ids = selection.masked_fill(mask == 0, float("-inf")).topk(model["top_k"], dim=-1).indices
    weights = scores.gather(1, ids)
    return ids, weights / weights.sum(dim=-1, keepdim=True)


def softmax_topk(logits, top_k):
    probabilities = logits.softmax(dim=-1)
    weights, ids = probabilities.topk(top_k, dim=-1)
    return ids, weights / weights.sum(dim=-1, keepdim=True)


def with_shared(ids, weights, first_shared_id, fused_shared, scale):
    """[doc-000]: the shared expert as an always-selected column, weight 1 / routed_scaling_factor."""
    if fused_shared == 0:
        return ids, weights
    shared = torch.full((ids.shape[0], 1), first_shared_id, dtype=ids.dtype, device=ids.device)
    return torch.cat([ids, shared], 1), torch.cat([weights, torch.full_like(weights[:, :1], 1.0 / scale)], 1)


def core(x, ids, weights, w13, w2, scale):
    """[doc-002]: dispatch (sort by expert) -> grouped w13 -> SiLU-and-mul -> grouped w2 -> combine."""
    tokens, columns = ids.shape
    experts, intermediate = w13.shape[0], w2.shape[2]
    flat = ids.flatten()
    order = torch.argsort(flat, stable=True)
    counts = torch.zeros(experts, dtype=torch.int32, device=x.device).scatter_add_(
        0, flat.int(), torch.ones_like(flat, dtype=torch.int32))
    offsets = torch.cumsum(counts, 0, dtype=torch.int32)
    source = order // columns
    rows = x.index_select(0, source)
    gate_up = torch._grouped_mm(rows, w13.transpose(1, 2), offs=offsets)
    activation = F.silu(gate_up[:, :intermediate]) * gate_up[:, intermediate:]
    down = torch._grouped_mm(activation, w2.transpose(1, 2), offs=offsets)
    weighted = down.float() * weights.flatten()[order].unsqueeze(1)
    out = torch.zeros(tokens, x.shape[1], dtype=torch.float32, device=x.device).index_add_(0, source, weighted)
    return (out * scale).to(torch.bfloat16)


def median_seconds(function, trials=7, target=2e-3):
    for _ in range(3):
        function()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); function(); stop.record(); torch.cuda.synchronize()
    repeats = max(1, min(200, int(target / max(start.elapsed_time(stop) * 1e-3, 1e-6))))
    times = []
    for _ in range(trials):
        start.record()
        for _ in range(repeats):
            function()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop) * 1e-3 / repeats)
    return statistics.median(times)


def graph_seconds(function):
    """The same work replayed from a CUDA graph (launch gaps removed); None if it cannot be captured."""
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                function()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            function()
        return median_seconds(graph.replay)
    except RuntimeError:
        return None


def sweep_slice(model, local, tokens_list, points):
    device = torch.device("cuda")
    hidden, intermediate = model["hidden"], model["intermediate"]
    experts = local + model["fused_shared"]
    generator = torch.Generator(device=device).manual_seed(local)
    w13 = ((torch.rand(experts, 2 * intermediate, hidden, device=device, generator=generator) * 2 - 1)
           * (3.0 / hidden) ** 0.5).to(torch.bfloat16)
    w2 = ((torch.rand(experts, hidden, intermediate, device=device, generator=generator) * 2 - 1)
          * (3.0 / intermediate) ** 0.5).to(torch.bfloat16)
    top_k = min(model["top_k"], local)
    for tokens in tokens_list:
        x = (torch.rand(tokens, hidden, device=device, generator=generator) * 2 - 1).to(torch.bfloat16)
        model_logits = torch.rand(tokens, model["experts"], device=device, generator=generator) * 4 - 2
        rank_logits = torch.rand(tokens, local, device=device, generator=generator) * 4 - 2
        bias = (torch.rand(model["experts"], device=device, generator=generator) * 2 - 1) * 0.05

        def model_router():
            if model["scoring"] == "sigmoid":
                return grouped_topk(model_logits, bias, model)
            return softmax_topk(model_logits, model["top_k"])

        if local == model["experts"]:
            ids, weights = model_router()
        else:  # a balanced EP dispatch: top_k distinct local slots per token, uniformly at random
            ids, weights = softmax_topk(rank_logits, top_k)
        ids, weights = with_shared(ids, weights, local, model["fused_shared"], model["scale"])

        def layer():
            model_router()
            return core(x, ids, weights, w13, w2, model["scale"])

        routing = median_seconds(model_router)
        eager = median_seconds(layer)
        graph = graph_seconds(layer)
        best = min(eager, graph) if graph is not None else eager
        points.append(dict(model=model["name"], weights="bf16", local_routed_experts=local,
                           fused_shared_experts=model["fused_shared"], tokens=tokens,
                           routing_seconds=routing, layer_eager_seconds=eager, layer_graph_seconds=graph,
                           layer_seconds=best))
        print(f"{model['name']:16s} E_local {local:3d}+{model['fused_shared']} T {tokens:5d} | routing "
              f"{routing * 1e6:8.1f} us | layer eager {eager * 1e6:9.1f} us | graph "
              f"{(graph or float('nan')) * 1e6:9.1f} us", flush=True)
    del w13, w2
    torch.cuda.empty_cache()


def compare(points, ours_path):
    with open(ours_path) as handle:
        ours = json.load(handle)
    index = {(p["model"], p["local_routed_experts"], p["tokens"]): p for p in ours["points"] if p["weights"] == "bf16"}
    rows = []
    for point in points:
        match = index.get((point["model"], point["local_routed_experts"], point["tokens"]))
        if match is None:
            continue
        mine = match["stages"]["layer"]["seconds"]
        point["moeplan_layer_seconds"] = mine
        point["moeplan_over_torch"] = mine / point["layer_seconds"]
        rows.append(point)
    print("\nmodel            E_local  tokens   moeplan us    torch us   moeplan/torch")
    for point in rows:
        print(f"{point['model']:16s} {point['local_routed_experts']:4d}+{point['fused_shared_experts']} "
              f"{point['tokens']:7d} {point['moeplan_layer_seconds'] * 1e6:12.1f} {point['layer_seconds'] * 1e6:11.1f}"
              f" {point['moeplan_over_torch']:10.3f}")
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--ours")
    parser.add_argument("--tokens", type=int, nargs="+", default=TOKENS)
    arguments = parser.parse_args()
    points = []
    for model in MODELS:
        for local in model["local"]:
            sweep_slice(model, local, arguments.tokens, points)
    result = dict(schema="moeplan.moe_torch_peer.v1", command=" ".join([os.path.basename(sys.executable)] + sys.argv),
                  device=dict(name=torch.cuda.get_device_name(), torch=torch.__version__, cuda=torch.version.cuda),
                  layer="model router + sort-by-expert dispatch + torch._grouped_mm w13 + SiLU-and-mul + "
                        "torch._grouped_mm w2 + index_add combine; layer_seconds = min(eager, CUDA graph)",
                  points=points)
    if arguments.ours:
        compare(points, arguments.ours)
    with open(arguments.out + ".tmp", "w") as handle:
        json.dump(result, handle, indent=1)
    os.replace(arguments.out + ".tmp", arguments.out)


if __name__ == "__main__":
    main()
