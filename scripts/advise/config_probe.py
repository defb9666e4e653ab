# Does a convnet's request sequence or its peak reserved depend on the allocator configuration
# or on the GPU lagging the CPU? (docs/advise.md, "A first measurement"). Run on a GPU as
#   PYTORCH_CUDA_ALLOC_CONF=... [CUDA_LAUNCH_BLOCKING=1] python3 scripts/advise/config_probe.py TAG OUTDIR
# It prints one JSON line (peaks, the snapshot's action counts) and, except under cudaMallocAsync
# (which records no snapshot), writes TAG.pickle and TAG.allocs.json into OUTDIR.
import json, os, pickle, sys, time
import torch, torchvision

conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
tag = sys.argv[1]
out = sys.argv[2]
torch.manual_seed(0)
model = torchvision.models.resnet50().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
shapes = [(32, 160), (64, 128), (16, 224), (48, 192), (24, 256), (64, 160), (8, 320), (40, 224)] * 2
record = "cudaMallocAsync" not in conf
if record:
    torch.cuda.memory._record_memory_history(max_entries=2_000_000)
t0 = time.time()
for b, s in shapes:
    x = torch.randn(b, 3, s, s, device="cuda")
    y = torch.randint(0, 1000, (b,), device="cuda")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
res = {"tag": tag, "conf": conf, "blocking": os.environ.get("CUDA_LAUNCH_BLOCKING", ""),
       "max_reserved": torch.cuda.max_memory_reserved(), "max_alloc": torch.cuda.max_memory_allocated(),
       "seconds": time.time() - t0}
if record:
    snap = torch.cuda.memory._snapshot()
    with open(os.path.join(out, tag + ".pickle"), "wb") as f:
        pickle.dump(snap, f)
    events = [e for tr in snap["device_traces"] for e in tr]
    acts = {}
    for e in events:
        acts[e["action"]] = acts.get(e["action"], 0) + 1
    res["actions"] = acts
    res["streams"] = sorted({e.get("stream", 0) for e in events})
    allocs = [e["size"] for e in events if e["action"] == "alloc"]
    res["n_alloc"] = len(allocs)
    res["alloc_bytes"] = sum(allocs)
    # how late frees complete: allocs between a block's free_requested and its free_completed
    pending = {}
    lag = []
    n = 0
    for e in events:
        if e["action"] == "alloc":
            n += 1
        elif e["action"] == "free_requested":
            pending[e["addr"]] = n
        elif e["action"] == "free_completed" and e["addr"] in pending:
            lag.append(n - pending.pop(e["addr"]))
    res["frees_completed_late"] = sum(1 for v in lag if v > 0)
    res["max_allocs_between_request_and_completion"] = max(lag) if lag else 0
    with open(os.path.join(out, tag + ".allocs.json"), "w") as f:
        json.dump(allocs, f)
print(json.dumps(res))
