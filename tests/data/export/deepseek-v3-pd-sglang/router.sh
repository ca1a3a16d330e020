#!/bin/sh
# DeepSeek-V3 router for sglang main, on any host that reaches every server
# checked against lib/export/flags/sglang.json for sglang main
# note: run the router in the release's lws.yaml image, which carries sglang-router
exec python3 -m sglang_router.launch_router \
    --pd-disaggregation \
    --prefill http://node0:30000 8998 \
    --decode http://node4:30000 \
    --host 0.0.0.0 \
    --port 8000
