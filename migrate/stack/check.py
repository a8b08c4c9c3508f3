"""Judge a pinned stack for each target (ROCm release x GPU) against the compatibility matrix."""
from __future__ import annotations

from collections.abc import Callable, Iterator

from migrate.model import worst_class
from migrate.stack import outcomes
from migrate.stack.binaries import coverage
from migrate.stack.matrix import Matrix, Release, minor, vtuple
from migrate.stack.model import FrameworkVerdict, GpuVerdict, Problem, StackTarget
from migrate.stack.pins import Pin, Stack
from migrate.vocabulary import FLOATING_PIN_KINDS, VERSIONED_PIN_KINDS, pin_rank

# How much of a version must match a listed one: JAX's plugin and jaxlib pair exactly, the rest by minor.
DIGITS = {"jax": 3}
FIRST = ("pytorch", "jax", "tensorflow", "onnxruntime", "vllm", "triton", "cupy")  # which pin a GPU problem is at


def targets(matrix: Matrix, rocm: list[str], arch: list[str]) -> list[tuple[str, Release | None, str]]:
    """(requested ROCm, its matrix column, GPU) for every pair; no ROCm given: the newest that lists the GPU."""
    out = []
    for gpu in arch:
        for version in rocm or [None]:  # type: ignore[list-item]
            release = matrix.release(version) if version else matrix.newest_for(gpu) or matrix.releases[0]
            out.append((version or (release.version if release else ""), release, gpu))
    return out


def framework_pins(matrix: Matrix, stack: Stack) -> dict[str, Pin]:
    """The pin that decides each framework: an exact one before a lock, a range or a bare name."""
    best: dict[str, Pin] = {}
    for pin in stack.pins + tuple(_image_pins(stack)):
        framework = matrix.packages.get(pin.package)
        if framework is None or (framework == "pytorch" and pin.package != "torch"):
            continue
        if framework not in best or pin_rank(pin.kind) < pin_rank(best[framework].kind):
            best[framework] = pin
    return best


IMAGE_PACKAGE = {"pytorch": "torch", "jax": "jax", "vllm": "vllm", "tensorflow": "tensorflow"}


def _image_pins(stack: Stack) -> list[Pin]:
    """A framework image (rocm/pytorch:..._pytorch_release_2.7.1, pytorch/pytorch:2.1.0-cuda12.1...) pins it."""
    return [Pin(package=IMAGE_PACKAGE[i.framework], spec=i.ref, version=i.version, local=None, kind="exact",
                where=i.where) for i in stack.images if i.framework in IMAGE_PACKAGE and i.version]


def check(matrix: Matrix, stack: Stack, rocm: str, release: Release | None, arch: str) -> StackTarget:
    gpu = gpu_verdict(matrix, release, arch)
    verdicts = tuple(framework_verdict(matrix, release, arch, name, pin)
                     for name, pin in sorted(framework_pins(matrix, stack).items()))
    problems = tuple(_problems(gpu, verdicts, release, arch)) + tuple(_binary_problems(matrix, stack, arch))
    base = _base_image(matrix, release)
    return StackTarget(rocm=rocm, release=release.version if release else None, arch=arch, gpu=gpu,
                       frameworks=verdicts, base_image=base, images_os=_images_os(stack, gpu), problems=problems,
                       migration_class=worst_class(outcomes.load().class_of(p.rule) for p in problems))


def gpu_verdict(matrix: Matrix, release: Release | None, arch: str) -> GpuVerdict:
    newest = matrix.newest_for(arch)
    if release is None:
        return GpuVerdict(arch=arch, status="release-not-in-matrix", os=(), limits="",
                          newest=newest.version if newest else None, sources=())
    if arch not in release.gpus:
        status = "other-release" if newest else "unlisted"
        return GpuVerdict(arch=arch, status=status, os=(), limits="", newest=newest.version if newest else None,
                          sources=tuple(matrix.url(r.source) for r in (release, newest) if r))
    systems, limits, sources = list(release.os), "", [matrix.url(release.source)]
    for limit in matrix.gpu_os:
        if arch in limit.gpus and release.version in limit.releases:
            if limit.only:
                systems = [s for s in systems if s in limit.only]
            systems = [s for s in systems if s not in limit.excluded]
            limits, sources = limit.text, [*sources, matrix.url(limit.source)]
    return GpuVerdict(arch=arch, status="supported", os=tuple(systems), limits=limits,
                      newest=newest.version if newest else None, sources=tuple(dict.fromkeys(sources)))


def builds(matrix: Matrix, release: Release, framework: str) -> tuple[tuple[str, ...], list[str]]:
    """The versions with a ROCm build for the release: AMD's list, plus pytorch.org's wheels for PyTorch."""
    listed = release.frameworks.get(framework, ())
    sources = [matrix.url(release.source)] if listed else []
    if framework == "pytorch":
        wheels = [w for w in matrix.wheels if any(_index_fits(i, release) for i in w.rocm)]
        extra = tuple(w.torch for w in wheels if minor(w.torch) not in {minor(v) for v in listed})
        listed = tuple(sorted(set(listed + extra), key=vtuple, reverse=True))
        sources += [matrix.url(w.source) for w in wheels if w.torch in extra]
    return listed, list(dict.fromkeys(sources))


def framework_verdict(matrix: Matrix, release: Release | None, arch: str, framework: str, pin: Pin) -> FrameworkVerdict:
    listed, sources = builds(matrix, release, framework) if release else ((), [])
    excluded = [x for x in matrix.limits if release and release.version in x.releases and arch in x.gpus
                and x.framework == framework]
    if excluded:
        listed = tuple(v for v in listed if all(v not in x.versions for x in excluded))
        sources += [matrix.url(x.source) for x in excluded]
    version = pin.version if pin.kind in VERSIONED_PIN_KINDS else None
    digits = DIGITS.get(framework, 2)

    def key(text: str) -> tuple[int, ...]:
        return vtuple(text)[:digits]

    if release is None:
        status, nearest = "unknown", None
    elif framework not in release.frameworks:
        status, nearest = "route", version
    elif not listed:
        status, nearest = "unsupported", None
    elif version is None:
        status, nearest = "floating", max(listed, key=vtuple)
    elif key(version) in {key(v) for v in listed}:
        status, nearest = "ok", next(v for v in listed if key(v) == key(version))
    else:
        status, nearest = "bump", _nearest(version, listed, key)
    others = tuple(r.version for r in matrix.releases if arch in r.gpus and version and r is not release
                   and key(version) in {key(v) for v in builds(matrix, r, framework)[0]}
                   and not any(r.version in x.releases and arch in x.gpus and x.framework == framework
                               and key(version) in {key(v) for v in x.versions} for x in matrix.limits))
    install, image, note, more = _route(matrix, release, arch, framework, nearest)
    note = " ".join([*(x.text + "." for x in excluded), note])
    if pin.cuda:
        note = f"CUDA {pin.cuda} build (+{pin.local}): install the ROCm build instead. " + note
    return FrameworkVerdict(framework=framework, package=pin.package, pinned=version or pin.spec, pin_kind=pin.kind,
                            status=status, supported=listed, nearest=nearest, install=install, image=image,
                            other_releases=others if status == "bump" else (), note=note.strip(), where=pin.where,
                            sources=tuple(dict.fromkeys(sources + more)))


def _nearest(version: str, listed: tuple[str, ...], key: Callable[[str], tuple[int, ...]]) -> str:
    """The lowest listed version at or above the pin, else the newest listed (a downgrade)."""
    above = [v for v in listed if key(v) >= key(version)]
    return min(above, key=vtuple) if above else max(listed, key=vtuple)


def _route(matrix: Matrix, release: Release | None, arch: str, framework: str,
           version: str | None) -> tuple[str | None, str | None, str, list[str]]:
    """(install line, image, note, sources) for a framework version on a release."""
    if release is None:
        return None, None, "", []
    if framework == "pytorch" and version:
        return _pytorch_route(matrix, release, arch, version)
    install = next((i for i in matrix.installs if i.framework == framework and i.when is None
                    and i.covers(release.version)), None)  # a `when` line needs a version (PyTorch's)
    image = _image(matrix, release, framework, version)
    if install is None:
        return None, image, "", []
    line = install.line.format(version=version or "<version>", rocm=".".join(release.version.split(".")[:2]))
    return line, image, "", [matrix.url(install.source)]


def _pytorch_route(matrix: Matrix, release: Release, arch: str, version: str) -> tuple[str | None, str | None, str, list[str]]:
    if release.stream == "core-sdk":
        device = next(i for i in matrix.installs if i.framework == "pytorch" and i.when == "device-wheel"
                      and i.covers(release.version))
        line = device.line.format(arch=arch, version=version, rocm_full=release.version)
        return line, _image(matrix, release, "pytorch", version), "", [matrix.url(device.source)]
    wheels = [(w, index) for w in matrix.wheels for index in w.rocm
              if minor(w.torch) == minor(version) and _index_fits(index, release)]
    image = _image(matrix, release, "pytorch", version)
    if not wheels:
        install = next(i for i in matrix.installs if i.framework == "pytorch" and i.when == "no-wheel")
        return install.line.format(version=version, rocm=release.version), image, "", [matrix.url(install.source)]
    wheel, index = max(wheels, key=lambda pair: vtuple(pair[0].torch))
    install = next(i for i in matrix.installs if i.framework == "pytorch" and i.when == "wheel")
    line = install.line.format(version=wheel.torch, torchvision=wheel.torchvision, torchaudio=wheel.torchaudio,
                               rocm=index)
    note, sources = "", [matrix.url(wheel.source)]
    for indexes, archs, source in matrix.wheel_archs:
        if any(minor(i) == minor(index) for i in indexes) and arch not in archs:
            note = f"the pytorch.org rocm{index} wheels are not built for {arch}; use a rocm/pytorch image"
            sources.append(matrix.url(source))
    return line, image, note, sources


def _index_fits(index: str, release: Release) -> bool:
    """A wheel index rocm6.2.4 serves release 6.2.4; rocm6.4 serves every 6.4.x release."""
    if len(vtuple(index)) >= 3:
        return index in release.versions
    return minor(index) == minor(release.version)


def _image(matrix: Matrix, release: Release, framework: str, version: str | None) -> str | None:
    candidates = [i for i in matrix.images if i.framework == framework and minor(i.rocm) == minor(release.version)
                  and (version is None or (i.version and minor(i.version) == minor(version)))]
    if not candidates:
        return None
    best = max(candidates, key=lambda i: (i.rocm in release.versions, vtuple(i.rocm), vtuple(i.version or "0")))
    return best.ref


def _images_os(stack: Stack, gpu: GpuVerdict) -> tuple[tuple[str, str, bool], ...]:
    """Each image whose name gives its OS, and whether the release lists that OS (any point release) for the GPU."""
    if gpu.status != "supported":
        return ()
    return tuple((i.ref, i.os, any(s == i.os or s.startswith(i.os + ".") for s in gpu.os))
                 for i in stack.images if i.os)


def _base_image(matrix: Matrix, release: Release | None) -> str | None:
    if release is None:
        return None
    bases = [i for i in matrix.images if i.framework is None and minor(i.rocm) == minor(release.version)]
    return max(bases, key=lambda i: (i.rocm in release.versions, vtuple(i.rocm))).ref if bases else None


def _binary_problems(matrix: Matrix, stack: Stack, arch: str) -> Iterator[Problem]:
    """A pinned prebuilt binary compiled without the GPU's gfx target."""
    for binary in coverage(matrix, stack, [arch]):
        if binary.missing:
            yield Problem(rule=outcomes.load().rule["binary-without-gpu-target"], arch=arch,
                          symbol=binary.name.split(" ")[0], where=binary.where,
                          message=f"{binary.name} carries {', '.join(binary.carries or ())}; not {arch} "
                                  "(\"invalid device function\" on that GPU)")


def _problems(gpu: GpuVerdict, verdicts: tuple[FrameworkVerdict, ...], release: Release | None,
              arch: str) -> Iterator[Problem]:
    if release is None:
        return
    rocm = release.version
    rule = outcomes.load().rule
    if verdicts and gpu.status in ("unlisted", "other-release"):
        first = min(verdicts, key=lambda v: FIRST.index(v.framework) if v.framework in FIRST else len(FIRST))
        names = ", ".join(v.package for v in verdicts)
        if gpu.status == "unlisted":
            yield Problem(rule=rule["gpu-unlisted"], arch=arch, symbol=first.package, where=first.where,
                          message=f"{names}: no ROCm release in the compatibility matrix supports {arch}")
        else:
            yield Problem(rule=rule["gpu-other-release"], arch=arch, symbol=first.package, where=first.where,
                          message=f"{names}: ROCm {rocm} does not support {arch}; ROCm {gpu.newest} does")
    for v in verdicts:
        if v.status == "bump" and v.pin_kind == "locked":  # the resolver's record: re-resolved for ROCm
            yield Problem(rule=rule["locked-pin-without-rocm-build"], arch=arch, symbol=v.package, where=v.where,
                          message=f"{v.package}=={v.pinned} (locked): no ROCm {rocm} build; re-resolve the lock "
                                  f"against the ROCm build ({v.nearest})")
        elif v.status == "bump" and v.other_releases:  # a release that supports the GPU builds the pin: pick it
            yield Problem(rule=rule["pin-in-other-release"], arch=arch, symbol=v.package, where=v.where,
                          message=f"{v.package}=={v.pinned}: no ROCm {rocm} build; ROCm "
                                  f"{', '.join(v.other_releases[:3])} build it for {arch} (or bump to {v.nearest})")
        elif v.status == "bump":
            yield Problem(rule=rule["pin-without-rocm-build"], arch=arch, symbol=v.package, where=v.where,
                          message=f"{v.package}=={v.pinned}: no ROCm {rocm} build; nearest is {v.nearest}")
        if v.pin_kind in FLOATING_PIN_KINDS:
            yield Problem(rule=rule["floating-pin"], arch=arch, symbol=v.package, where=v.where,
                          message=f"{v.package}: not pinned to a version ({v.pinned})"
                                  + (f"; ROCm {rocm} lists {', '.join(v.supported)}" if v.supported else ""))
