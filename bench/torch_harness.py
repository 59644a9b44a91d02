#!/usr/bin/env python3
"""torch_harness.py — the PyTorch way of fuzzing a CUDA kernel, as a baseline
for dirigo's GPU backend (bench/gpu_fuzz_bench.c).

Per case, what a hand-written harness does: seed a generator, draw the inputs
with torch on the GPU, launch the *same* kernel source through cupy.RawModule
(NVRTC), compute the reference with torch in float64, compare with
torch.allclose at the op's tolerance, and read the verdict back (.item()).
The kernel alone is also timed with CUDA events ("bare kernel").

    python3 bench/torch_harness.py [--cases N] [--json OUT] [--dirigo GPU_FUZZ_BENCH.json]

With --dirigo it prints the comparison table: dirigo's cases per second over
the harness's at spec sizes (target >= 3x) and dirigo's time per case over the
bare kernel time at realistic sizes (target <= 1.5x).
"""
import argparse
import json
import math
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def device_source(path):
    """The .cu file's device side: host headers out, host code after a
    TORCH_EXTENSION_NAME / torch include cut off (what dirigo's gpu_src does
    with a parser, done here by hand for these four files)."""
    out = []
    for line in open(path):
        if re.match(r'\s*#\s*ifdef\s+TORCH_EXTENSION_NAME', line) or 'torch/extension.h' in line:
            break
        if re.match(r'\s*#\s*include\s*<cuda_runtime\.h>', line):
            continue
        if re.match(r'\s*#\s*include\s*<math_constants\.h>', line):
            line = '#define CUDART_INF_F __int_as_float(0x7f800000)\n'
        out.append(line)
    return ''.join(out)


def problems(torch):
    F = torch.nn.functional

    def softmax(sz):
        N, C = sz['N'], sz['C']
        return dict(name='softmax/softmax_block', expr='softmax_block<128>',
                    shapes={'x': (N, C)}, out=(N, C),
                    grid=(N, 1, 1), block=(128, 1, 1),
                    args=lambda t, y: (y, t['x'], C),
                    ref=lambda t: torch.softmax(t['x'].double(), -1), tol=(1e-6, 1e-5))

    def matmul(sz):
        M, N, K = sz['M'], sz['N'], sz['K']
        return dict(name='matmul/matmul_tiled', expr='matmul_tiled',
                    shapes={'a': (M, K), 'b': (K, N)}, out=(M, N),
                    grid=((N + 15) // 16, (M + 15) // 16, 1), block=(16, 16, 1),
                    args=lambda t, y: (y, t['a'], t['b'], M, N, K),
                    ref=lambda t: t['a'].double() @ t['b'].double(), tol=(1e-4, 1e-4))

    def layernorm(sz):
        N, C = sz['N'], sz['C']
        return dict(name='norm/layernorm_block', expr='layernorm_block<256>',
                    shapes={'x': (N, C), 'w': (C,), 'b': (C,)}, out=(N, C),
                    grid=(N, 1, 1), block=(256, 1, 1),
                    args=lambda t, y: (y, t['x'], t['w'], t['b'], C, ('f32', 1e-5)),
                    ref=lambda t: F.layer_norm(t['x'].double(), (C,), t['w'].double(),
                                               t['b'].double(), 1e-5), tol=(1e-4, 1e-4))

    def residual(sz):
        N = sz['N']
        return dict(name='elementwise/residual_add', expr='residual_add_kernel',
                    shapes={'x': (N,), 'r': (N,)}, out=(N,),
                    grid=((N + 255) // 256, 1, 1), block=(256, 1, 1),
                    args=lambda t, y: (y, t['x'], t['r'], ('f32', 0.5), N),
                    ref=lambda t: t['x'].double() + 0.5 * t['r'].double(), tol=(1e-6, 1e-6))

    def conv2d(sz):
        N, C, H, W, K = sz['N'], sz['C'], sz['H'], sz['W'], sz['K']
        return dict(name='conv/conv2d_k3', expr='conv2d_same<3>',
                    shapes={'x': (N, C, H, W), 'w': (K, C, 3, 3)}, out=(N, K, H, W),
                    grid=((H * W + 63) // 64, K, N), block=(64, 1, 1), shared=C * 9 * 4,
                    args=lambda t, y: (y, t['x'], t['w'], C, H, W, K),
                    ref=lambda t: F.conv2d(t['x'].double(), t['w'].double(), padding=1), tol=(1e-4, 1e-4))

    # (builder, spec sizes as in samples/*.lua, realistic sizes as in lua/ops/*.lua)
    return [
        (softmax, 'samples/softmax/softmax_block.cu', {'N': 3, 'C': 300}, {'N': 16, 'C': 16384}),
        (matmul, 'samples/matmul/matmul_tiled.cu', {'M': 33, 'N': 20, 'K': 37},
         {'M': 1024, 'N': 1024, 'K': 1024}),
        (layernorm, 'samples/norm/layernorm_block.cu', {'N': 3, 'C': 600}, {'N': 8 * 1024, 'C': 768}),
        (residual, 'samples/elementwise/residual_add.cu', {'N': 1000}, {'N': 8 * 1024 * 768}),
        (conv2d, 'samples/conv/conv2d_k3.cu', {'N': 2, 'C': 3, 'H': 6, 'W': 11, 'K': 2},
         {'N': 32, 'C': 64, 'H': 56, 'W': 56, 'K': 64}),   # ResNet-50 conv2_x 3x3
    ]


def run(args):
    import numpy as np
    import torch
    import cupy as cp

    dev = torch.device('cuda')
    rows = []
    for build, cu, spec, real in problems(torch):
        for mode, sz in (('spec', spec), ('realistic', real)):
            P = build(sz)
            mod = cp.RawModule(code=device_source(os.path.join(ROOT, cu)),
                               options=('-std=c++17',), name_expressions=[P['expr']])
            kern = mod.get_function(P['expr'])

            def kargs(t, y):
                out = []
                for a in P['args'](t, y):
                    if isinstance(a, torch.Tensor):
                        out.append(cp.asarray(a))
                    elif isinstance(a, tuple):
                        out.append(np.float32(a[1]))
                    else:
                        out.append(np.int32(a))
                return tuple(out)

            stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)  # torch's stream
            gen = torch.Generator(device=dev)

            def case(k, timed=False):
                gen.manual_seed(1000 + k)
                t = {n: torch.randn(s, device=dev, dtype=torch.float32, generator=gen)
                     for n, s in P['shapes'].items()}
                y = torch.empty(P['out'], device=dev, dtype=torch.float32)
                a = kargs(t, y)
                if timed:
                    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    e0.record()
                with stream:
                    kern(P['grid'], P['block'], a, shared_mem=P.get('shared', 0))
                if timed:
                    e1.record()
                atol, rtol = P['tol']
                good = bool(torch.allclose(y.double(), P['ref'](t), rtol=rtol, atol=atol))   # syncs
                return good, (e0.elapsed_time(e1) if timed else 0.0)

            case(0)                                    # compile + warm up
            n = args.cases if mode == 'spec' else max(3, args.cases // 40)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            npass = sum(1 for k in range(n) if case(k)[0])
            torch.cuda.synchronize()
            secs = time.perf_counter() - t0
            kms = [case(k, timed=True)[1] for k in range(5)]
            kms.sort()
            rows.append({'problem': P['name'], 'sizes': mode,
                         'shape': ' '.join('%s=%d' % kv for kv in sz.items()),
                         'cases': n, 'cases_per_s': n / secs, 'ms_per_case': 1e3 * secs / n,
                         'kernel_ms': kms[len(kms) // 2], 'pass': npass})
    return rows


def table(rows, dirigo):
    print('%-26s %-9s %-24s %10s %10s %10s %10s %9s' % (
        'problem', 'sizes', 'shape', 'torch c/s', 'torch ms', 'kernel ms', 'dirigo c/s', 'ratio'))
    by = {(r['problem'], r['sizes']): r for r in (dirigo or []) if r.get('backend') == 'gpu'}
    for r in rows:
        d = by.get((r['problem'], r['sizes']))
        line = '%-26s %-9s %-24s %10.1f %10.3f %10.4f' % (
            r['problem'], r['sizes'], r['shape'], r['cases_per_s'], r['ms_per_case'], r['kernel_ms'])
        if d:
            if r['sizes'] == 'spec':   # dirigo cases/s over the harness's (target >= 3)
                ratio = '%8.2fx faster' % (d['cases_per_s'] / r['cases_per_s'])
            else:                      # dirigo ms/case over the bare kernel (target <= 1.5)
                k = d['kernel_ms'] if d['kernel_ms'] > 0 else r['kernel_ms']
                ratio = '%7.2fx kernel' % (d['ms_per_case'] / k) if k > 0 else '-'
            line += ' %10.1f %s' % (d['cases_per_s'], ratio)
        print(line + '   %d/%d pass' % (r['pass'], r['cases']))
    print('(ratio: at spec sizes dirigo cases/s over torch cases/s, target >= 3x; at realistic '
          'sizes dirigo ms/case over the bare kernel time, target <= 1.5x)')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cases', type=int, default=200)
    ap.add_argument('--json')
    ap.add_argument('--dirigo', help="bench/gpu_fuzz_bench's --json output")
    a = ap.parse_args()
    try:
        import torch  # noqa: F401
        import cupy   # noqa: F401
        if not torch.cuda.is_available():
            raise RuntimeError('no CUDA device')
    except Exception as e:  # no torch, cupy or GPU: say so, do not fail a batch
        print('torch_harness: skipped (%s)' % e)
        return 0
    rows = run(a)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(rows, f, indent=1)
    dirigo = json.load(open(a.dirigo)) if a.dirigo and os.path.exists(a.dirigo) else None
    table(rows, dirigo)
    return 0


if __name__ == '__main__':
    sys.exit(main())
