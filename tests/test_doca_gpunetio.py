"""Session 28 (nvsdk): a CUDA kernel on DOCA GPUNetIO's device queues is NVIDIA-only networking, not a port
(docs/decisions/2026-12-07-s28-doca-gpunetio-and-nvidia-only-sdks.md). The tree is cut from OnyxDurga/doca-app
(331b22b): a meson build, a receive kernel on doca_gpunetio_dev_*.cuh, a host program on DOCA Flow and DPDK."""
from __future__ import annotations

from pathlib import Path

from tests.test_optional_parts import scanned

KERNEL = """#include <doca_gpunetio_dev_buf.cuh>
#include <doca_gpunetio_dev_eth_rxq.cuh>
#include <doca_log.h>
#include <cuda_runtime.h>

__global__ void receive_packets(struct doca_gpu_eth_rxq *rxq, uint32_t *exit_cond)
{
	uint32_t rx_pkt_num = 0;
	uint64_t rx_buf_idx = 0;
	doca_gpu_dev_eth_rxq_receive_block(rxq, 64, 0, &rx_pkt_num, &rx_buf_idx);
}

extern "C" cudaError_t kernel_receive_packets(cudaStream_t stream, struct doca_gpu_eth_rxq *rxq, uint32_t *exit_cond)
{
	receive_packets<<<1, 512, 0, stream>>>(rxq, exit_cond);
	return cudaGetLastError();
}
"""
HOST = """#include <rte_ethdev.h>
#include <doca_dpdk.h>
#include <doca_flow.h>
#include <doca_log.h>
#include <cuda_runtime.h>

int main(void)
{
	cudaStream_t stream;
	cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
	return 0;
}
"""


def _tree(tmp_path: Path, kernel: str) -> Path:
    (tmp_path / "device").mkdir()
    (tmp_path / "host").mkdir()
    (tmp_path / "device" / "receive_kernel.cu").write_text(kernel)
    (tmp_path / "host" / "receive_sample.c").write_text(HOST)
    return tmp_path


def test_a_kernel_on_gpunetio_device_queues_is_incompatible(tmp_path: Path, rulebase) -> None:
    data = scanned(_tree(tmp_path, KERNEL), rulebase)
    hits = sorted((f["path"], f["line"]) for f in data["findings"] if f["rule"] == "HIP0050")
    assert hits == [("device/receive_kernel.cu", 1), ("device/receive_kernel.cu", 2)]
    assert data["summary"]["class"] == "incompatible"
    decided = {f["id"] for f in data["findings"] if f["rule"] == "HIP0050"}
    assert any(set(w["reasons"]) & decided for w in data["workloads"])


def test_doca_on_the_cpu_beside_plain_cuda_stays_a_port(tmp_path: Path, rulebase) -> None:
    """Near miss: the same tree with a plain CUDA kernel; the host's DOCA Flow/DPDK headers program the NIC only."""
    plain = KERNEL.replace("#include <doca_gpunetio_dev_buf.cuh>\n#include <doca_gpunetio_dev_eth_rxq.cuh>\n", "") \
        .replace("doca_gpu_dev_eth_rxq_receive_block(rxq, 64, 0, &rx_pkt_num, &rx_buf_idx);", "rx_pkt_num += rx_buf_idx;")
    data = scanned(_tree(tmp_path, plain), rulebase)
    assert not [f for f in data["findings"] if f["rule"] == "HIP0050"]
    assert data["summary"]["class"] == "migration-required"
