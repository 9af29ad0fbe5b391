#!/usr/bin/env python3
"""The bokeh edge test: a layered scene with exact disparity through `cinegraph bokeh`.

Scene (1280x720): a sharp, textured red subject (an ellipse, disparity 40) in front of a
textured grey-green plane (disparity 4); the disparity map is exact. The still is rendered
with focus on the subject, and measured against the truth:

- inside:  PSNR (RGB) of the subject, 10 px inside its outline, against the input
           (in focus: nothing should change);
- bleed:   the subject's colour in the 2-12 px ring of background just outside its outline,
           as a fraction of its own (red excess over an ideal occlusion-aware blur of the
           background alone, divided by the subject's red excess over that background);
- outline: the worst dip of the radial luma profile below the darker of its two sides
           (a dark outline) and rise above the brighter (a bright one), in 8-bit codes.
- reference: PSNR of ours against the layered reference (the background plane, holes
           filled from around, disk-blurred in linear light; the subject composited over it),
           inside and outside the subject.

Usage: edge.py CINEGRAPH [--quality Q] [--aperture N] [--keep DIR]
Prints one `key=value` line per metric.
"""
import argparse, os, subprocess, sys, tempfile, time
import numpy as np
import cv2

W, H = 1280, 720
CX, CY, RX, RY = 560.0, 380.0, 150.0, 210.0
D_SUBJECT, D_PLANE = 40.0, 4.0
K = 0.7  # the lens model's aperture constant (LensModel.apertureConstant)


def scene():
    y, x = np.mgrid[0:H, 0:W].astype(np.float64) + 0.5
    # The plane: grey-green texture, stripes and blobs.
    a = np.sin(x / 9) * np.cos(y / 13) ; b = np.sin((x + y) / 6.5)
    plane = np.stack([0.35 + 0.12 * a, 0.45 + 0.10 * b, 0.38 + 0.08 * (a * b)], axis=-1)
    # The subject: red, textured, anti-aliased outline.
    a2 = np.sin(x / 3.1) * np.cos(y / 4.3) ; b2 = np.sin((x - y) / 2.7)
    red = np.stack([0.80 + 0.12 * a2, 0.12 + 0.06 * b2, 0.10 + 0.05 * a2], axis=-1)
    r = np.sqrt(((x - CX) / RX) ** 2 + ((y - CY) / RY) ** 2)
    inside_px = (1 - r) * min(RX, RY)  # ~ pixels inside the outline
    cover = np.clip(inside_px + 0.5, 0, 1)[..., None]
    img = red * cover + plane * (1 - cover)
    disp = np.where(cover[..., 0] >= 0.5, D_SUBJECT, D_PLANE).astype(np.float32)
    return img, plane, red, cover[..., 0], inside_px, disp


def to8(v):
    return np.clip(np.rint(v * 255), 0, 255).astype(np.uint8)


def lin(v8):
    return (v8.astype(np.float64) / 255) ** 2.2


def write_pfm(path, d):
    with open(path, "wb") as f:
        f.write(b"Pf\n%d %d\n-1.0\n" % (d.shape[1], d.shape[0]))
        f.write(np.flipud(d).astype("<f4").tobytes())


def disk(r):
    n = int(np.ceil(r + 0.5))
    yy, xx = np.mgrid[-n:n + 1, -n:n + 1]
    k = np.clip(r + 0.5 - np.sqrt(xx ** 2 + yy ** 2), 0, 1)
    return k / k.sum()


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse)


def ssim_map(a, b):
    """SSIM per pixel of two 8-bit luma images (Gaussian window, sigma 1.5)."""
    a = a.astype(np.float64); b = b.astype(np.float64)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    g = lambda v: cv2.GaussianBlur(v, (11, 11), 1.5)
    ma, mb = g(a), g(b)
    va, vb, cov = g(a * a) - ma * ma, g(b * b) - mb * mb, g(a * b) - ma * mb
    return ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cinegraph")
    ap.add_argument("--quality", default=None)
    ap.add_argument("--aperture", type=float, default=2.0)
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    img, plane, red, cover, inside_px, disp = scene()
    src8 = to8(img)
    work = args.keep or tempfile.mkdtemp(prefix="bokeh-edge-")
    os.makedirs(work, exist_ok=True)
    inp, pfm, out = os.path.join(work, "scene.png"), os.path.join(work, "scene.pfm"), os.path.join(work, "out.png")
    cv2.imwrite(inp, cv2.cvtColor(src8, cv2.COLOR_RGB2BGR))
    write_pfm(pfm, disp)
    cmd = [args.cinegraph, "bokeh", inp, "--disparity", pfm, "--focus-disparity", str(D_SUBJECT),
           "--aperture", str(args.aperture), "-o", out]
    if args.quality:
        cmd += ["--quality", args.quality]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    res8 = cv2.cvtColor(cv2.imread(out, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)

    # The ideal background: the plane where visible, holes filled from around (normalised
    # convolution), disk-blurred in linear light with the plane's circle of confusion.
    radius = min(K * abs(D_PLANE - D_SUBJECT) / args.aperture, 0.03 * H)
    k = disk(radius)
    visible = (cover < 0.5).astype(np.float64)
    plin = lin(to8(plane)) * visible[..., None]
    num = np.stack([cv2.filter2D(plin[..., c], -1, k, borderType=cv2.BORDER_REFLECT) for c in range(3)], -1)
    den = cv2.filter2D(visible, -1, k, borderType=cv2.BORDER_REFLECT)[..., None]
    bg = num / np.maximum(den, 1e-9)
    # The layered reference: the sharp subject over that background.
    ref_lin = lin(src8) * cover[..., None] + bg * (1 - cover[..., None])
    ref8 = to8(ref_lin ** (1 / 2.2))

    deep = inside_px >= 10
    ring = (inside_px <= -2) & (inside_px >= -12)
    outside = inside_px <= -2
    # Inside: in focus, unchanged.
    print(f"inside_psnr_db={psnr(res8[deep], src8[deep]):.2f}")
    print(f"inside_exact={np.mean(np.all(res8[deep] == src8[deep], axis=-1)) * 100:.2f}")
    # Bleed: red excess in the ring over the ideal background, per the subject's own excess.
    out_lin = lin(res8)
    excess = out_lin[ring][:, 0] - bg[ring][:, 0]
    subject_excess = np.mean(lin(src8)[deep][:, 0]) - np.mean(bg[ring][:, 0])
    print(f"ring_bleed_pct={100 * np.mean(excess) / subject_excess:.2f}")
    near = (inside_px <= -2) & (inside_px >= -5)
    print(f"ring2_5_bleed_pct={100 * np.mean(out_lin[near][:, 0] - bg[near][:, 0]) / subject_excess:.2f}")
    # Outline: radial luma profile (mean over angles) from 12 px inside to 30 px outside.
    luma = lambda v: 0.2126 * v[..., 0] + 0.7152 * v[..., 1] + 0.0722 * v[..., 2]
    lo, ro = luma(res8.astype(np.float64)), luma(ref8.astype(np.float64))
    bins = np.arange(-30, 13)
    prof, rprof = [], []
    for b0 in bins:
        m = (inside_px >= b0) & (inside_px < b0 + 1)
        prof.append(lo[m].mean()); rprof.append(ro[m].mean())
    prof = np.array(prof)
    inner, outer = prof[-1], prof[0]
    dark = max(0.0, min(inner, outer) - prof.min())
    bright = max(0.0, prof.max() - max(inner, outer))
    print(f"outline_dark_codes={dark:.2f}")
    print(f"outline_bright_codes={bright:.2f}")
    print("profile=" + ",".join(f"{v:.1f}" for v in prof))
    print("reference_profile=" + ",".join(f"{v:.1f}" for v in rprof))
    print(f"reference_psnr_inside_db={psnr(res8[cover >= 0.5], ref8[cover >= 0.5]):.2f}")
    print(f"reference_psnr_outside_db={psnr(res8[outside], ref8[outside]):.2f}")
    ssim = ssim_map(luma(res8.astype(np.float64)), luma(ref8.astype(np.float64)))
    print(f"reference_ssim_inside={ssim[cover >= 0.5].mean():.4f}")
    print(f"reference_ssim_outside={ssim[outside].mean():.4f}")
    print(f"wall_s={wall:.3f}")
    if args.keep:
        cv2.imwrite(os.path.join(work, "reference.png"), cv2.cvtColor(ref8, cv2.COLOR_RGB2BGR))

    # The blurred foreground: focus on the plane; the subject, now in front of the focal plane,
    # spreads over its outline as a real lens spreads it (its colour and coverage disk-blurred
    # and laid over the sharp plane).
    fg_out = os.path.join(work, "foreground.png")
    cmd = [args.cinegraph, "bokeh", inp, "--disparity", pfm, "--focus-disparity", str(D_PLANE),
           "--aperture", str(args.aperture), "-o", fg_out] + (["--quality", args.quality] if args.quality else [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    fg8 = cv2.cvtColor(cv2.imread(fg_out, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    k = disk(radius)
    sub_lin = lin(to8(red)) * cover[..., None]
    sub_blur = np.stack([cv2.filter2D(sub_lin[..., c], -1, k, borderType=cv2.BORDER_REFLECT) for c in range(3)], -1)
    alpha = cv2.filter2D(cover, -1, k, borderType=cv2.BORDER_REFLECT)[..., None]
    fg_ref8 = to8((sub_blur + (1 - alpha) * lin(to8(plane))) ** (1 / 2.2))
    band = np.abs(inside_px) <= radius + 2
    print(f"foreground_psnr_edge_band_db={psnr(fg8[band], fg_ref8[band]):.2f}")
    # Spread: the width over which the red channel goes from 10 % to 90 % of its way from the
    # plane to the subject (radial profile), ours and the reference's.
    def spread(img8):
        prof = []
        for b0 in np.arange(-40, 41):
            m = (inside_px >= b0) & (inside_px < b0 + 1)
            prof.append(img8[m][:, 0].astype(np.float64).mean())
        prof = np.array(prof)
        lo_v, hi_v = prof[0], prof[-1]
        t = (prof - lo_v) / (hi_v - lo_v)
        return float(np.argmax(t >= 0.9) - np.argmax(t >= 0.1))
    print(f"foreground_spread_px={spread(fg8):.0f}")
    print(f"foreground_reference_spread_px={spread(fg_ref8):.0f}")
    if args.keep:
        cv2.imwrite(os.path.join(work, "foreground-reference.png"), cv2.cvtColor(fg_ref8, cv2.COLOR_RGB2BGR))


if __name__ == "__main__":
    main()
