"""Session 29 (nvsdk2): NVIDIA's DRIVE, Jetson and vision SDKs as data (HIP0051-HIP0053, HIP8017/HIP8018/HIP8020), and
OpenCV's CUDA modules graded by AMD's HIP port of them (HIP0044, HIP6049, with HIP3066/HIP6053 for the NVIDIA hardware
they wrap). docs/decisions/2026-12-07-s29-nvidia-drive-jetson-vision-sdks.md and
docs/decisions/2026-12-07-s29-opencv-cuda-modules-on-amd.md."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import write_tree
from tests.test_optional_parts import scanned


def _scan(tmp_path: Path, files: dict[str, str], rulebase) -> dict:
    write_tree(tmp_path, files)
    return scanned(tmp_path, rulebase)


def _deciding(data: dict) -> set[str]:
    by_id = {f["id"]: f["rule"] for f in data["findings"]}
    return {by_id[r] for w in data["workloads"] for r in w["reasons"] if r in by_id}


# chinitaberrio/gmsl_driver_agx (365ea4e): CMakeLists.txt:15-17, 66-69 and include/CameraPort.h:4-8
DRIVE_CMAKE = ("cmake_minimum_required(VERSION 2.8.3)\nproject(sekonix_camera)\nfind_package(Threads REQUIRED)\n"
               "find_package(Driveworks REQUIRED)\nfind_package(OpenCV REQUIRED)\n"
               "add_executable(node src/CameraPort.cpp)\ntarget_link_libraries(node nvmedia driveworks ${OpenCV_LIBS})\n")
DRIVE_SOURCE = ("#include <dw/sensors/Sensors.h>\n#include <dw/image/Image.h>\n#include <dw/sensors/camera/Camera.h>\n"
                "dwStatus start(dwSensorHandle_t sensor) { return dwSensor_start(sensor); }\n")


def test_a_driveworks_camera_driver_is_incompatible(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, {"CMakeLists.txt": DRIVE_CMAKE, "src/CameraPort.cpp": DRIVE_SOURCE}, rulebase)
    assert data["summary"]["class"] == "incompatible", data["findings"]
    assert {"HIP0051", "HIP8020"} <= {f["rule"] for f in data["findings"]}
    assert {"-lnvmedia", "-ldriveworks"} <= {f["symbol"] for f in data["findings"] if f["rule"] == "HIP8018"}
    # near miss: a project's own dw/ headers (a game's <dw/types.h>) and no DriveWorks package are plain C++
    near = _scan(tmp_path / "near", {"CMakeLists.txt": "project(game)\nadd_executable(game src/main.cpp)\n",
                                     "src/main.cpp": "#include <dw/types.h>\n#include \"dw/core.hh\"\nint main() {}\n"},
                 rulebase)
    assert near["summary"]["class"] == "native", near["findings"]


# whill-labs/gpu_stereo_image_proc (93c0f2e): include/gpu_stereo_image_proc/vx_stereo_matcher.h:39-41 and
# src/libgpu_stereo_image_proc/vx_stereo_matcher.cpp:189-194
VX_SOURCE = ("#include <VX/vx.h>\n#include <VX/vxu.h>\n"
             "vx_node scale(vx_graph g, vx_image in, vx_image out) {\n"
             "  return vxScaleImageNode(g, in, out, VX_INTERPOLATION_BILINEAR);\n}\n")


def test_visionworks_nvx_is_incompatible_and_khronos_openvx_is_not(tmp_path: Path, rulebase) -> None:
    nvx = VX_SOURCE.replace("#include <VX/vx.h>\n", "#include <NVX/nvx.h>\n#include <VX/vx.h>\n")
    data = _scan(tmp_path, {"src/vx_stereo_matcher.cpp": nvx}, rulebase)
    assert data["summary"]["class"] == "incompatible", data["findings"]
    assert _deciding(data) == {"HIP0053"}
    near = _scan(tmp_path / "near", {"src/vx_stereo_matcher.cpp": VX_SOURCE}, rulebase)
    assert near["summary"]["class"] == "native", near["findings"]


# oleksandr-san/opencv_001 (12495ee) cudah/blurring.cu: its own kernel over cv::cuda::GpuMat buffers
KERNEL_ON_GPUMAT = ("#include <opencv2/core/cuda.hpp>\n#include <opencv2/cudaimgproc.hpp>\n"
                    "__global__ void threshold(cv::cuda::PtrStepSz<uchar> src, cv::cuda::PtrStepSz<uchar> dst) {\n"
                    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (x < src.cols) dst(0, x) = src(0, x) > 128 ? 255 : 0;\n}\n"
                    "void run(const cv::cuda::GpuMat& s, cv::cuda::GpuMat& d) {\n"
                    "  threshold<<<(s.cols + 255) / 256, 256>>>(s, d);\n}\n")


def test_kernels_over_opencv_cuda_buffers_are_a_port(tmp_path: Path, rulebase) -> None:
    data = _scan(tmp_path, {"src/blurring.cu": KERNEL_ON_GPUMAT}, rulebase)
    assert data["summary"]["class"] == "migration-required", data["findings"]
    assert "HIP0044" in {f["rule"] for f in data["findings"]}
    # near miss: the same program on NVIDIA's optical-flow engine, which no AMD build of OpenCV has
    nvof = KERNEL_ON_GPUMAT.replace("#include <opencv2/cudaimgproc.hpp>\n", "#include <opencv2/cudaoptflow.hpp>\n") + \
        "cv::Ptr<cv::cuda::NvidiaOpticalFlow_2_0> flow(cv::Size size) {\n" \
        "  return cv::cuda::NvidiaOpticalFlow_2_0::create(size);\n}\n"
    hw = _scan(tmp_path / "hw", {"src/blurring.cu": nvof}, rulebase)
    assert hw["summary"]["class"] == "incompatible", hw["findings"]
    assert _deciding(hw) == {"HIP3066"}
