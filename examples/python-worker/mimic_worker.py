#!/usr/bin/env python3
"""A mimic compute worker in Python: the skeleton a GPU model plugs into.

It speaks the worker protocol of docs/compute-protocol.md (claim, heartbeat, signed input
downloads, result upload, complete / fail) with the standard library only, and renders
with a *trivial frame transform* so it runs anywhere ffmpeg does. Replace `PanRenderer`
with your model (see "THE RENDERER" below and docs/gpu-backend.md); everything else is the
protocol and stays as it is.

    MIMIC_WORKER_TOKEN=mwk_... python3 mimic_worker.py --server https://mimic.example.com

Python 3.9+, no third-party packages. ffmpeg comes from --ffmpeg, $FFMPEG or the PATH.
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.client import HTTPException
from typing import Any, Callable, Dict, List, Optional, Tuple

WORKER_VERSION = "1.0.0"
API = "/compute/v1"
DEFAULT_WAIT_MS = 20_000
CALL_TIMEOUT_S = 30
CHUNK = 1 << 20
WORKER_NAME = re.compile(r"^[\x21-\x7e]{1,64}$")
INPUT_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/bmp": ".bmp", "image/tiff": ".tiff",
                    "image/webp": ".webp", "video/mp4": ".mp4", "video/quicktime": ".mov", "video/mpeg": ".mpeg",
                    "video/webm": ".webm"}

log = logging.getLogger("mimic-worker")


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------


class RenderFailure(Exception):
    """The inputs are at fault: the animation ends in `error` with this kind (not retried).

    `description` is shown to the user: name the reason, never a URL or a file path.
    """

    kind = "ConfigError"

    def __init__(self, description: str, kind: Optional[str] = None):
        super().__init__(description)
        self.description = description
        if kind:
            self.kind = kind


class SourceError(RenderFailure):
    kind = "SourceError"


class DriverError(RenderFailure):
    kind = "DriverError"


class FaceError(RenderFailure):
    kind = "FaceError"


class LogoError(RenderFailure):
    kind = "LogoError"


class OverlayError(RenderFailure):
    kind = "OverlayError"


class Aborted(Exception):
    """The render must stop: the lease was lost, the task was cancelled, or we shut down."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class TaskGone(Exception):
    """409 from the service: this task is no longer ours (lease_lost, cancelled, result_missing)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Unauthorized(Exception):
    """401: the worker token is wrong or was revoked."""


class Transient(Exception):
    """A network error or a 5xx: worth trying again after a pause."""


class ProtocolError(Exception):
    """An answer the protocol does not allow here (a bug on one side, or a misconfiguration)."""


# ---------------------------------------------------------------------------------------
# The protocol client
# ---------------------------------------------------------------------------------------


def _origin(url: str) -> Tuple[str, str, int]:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("not an http(s) URL")
    return scheme, parts.hostname.lower(), parts.port or (443 if scheme == "https" else 80)


def _path_only(url: str) -> str:
    """For logs: signed URLs are secrets, so only their path is ever written down."""
    return urllib.parse.urlsplit(url).path


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    # A redirect could lead off the service's origin; the protocol never redirects.
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102
        return None


class ServiceClient:
    """The calls of docs/compute-protocol.md. Talks only to URLs on the --server origin."""

    def __init__(self, server: str, token: str, worker_info: Dict[str, str]):
        self.base = server.rstrip("/")
        self.origin = _origin(self.base)
        self.token = token
        self.worker_info = worker_info
        self._opener = urllib.request.build_opener(_NoRedirects())

    def _check_origin(self, url: str) -> None:
        try:
            same = _origin(url) == self.origin
        except ValueError:
            same = False
        if not same:
            raise ProtocolError(f"refusing a URL outside the server origin ({_path_only(url) or 'not http(s)'})")

    def _send(self, method: str, url: str, *, body: Any = None, data: Any = None, headers: Optional[Dict[str, str]] = None,
              auth: bool = True, timeout: float = CALL_TIMEOUT_S):
        """One HTTP exchange. Returns (status, response); the caller reads and closes it."""
        self._check_origin(url)
        hdrs = dict(headers or {})
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        if auth:
            hdrs["Authorization"] = f"Bearer {self.token}"
        hdrs.setdefault("User-Agent", f"mimic-python-worker/{WORKER_VERSION}")
        req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
        try:
            res = self._opener.open(req, timeout=timeout)
            return res.status, res
        except urllib.error.HTTPError as e:
            return e.code, e
        except (urllib.error.URLError, HTTPException, OSError) as e:
            raise Transient(f"{method} {_path_only(url)}: {getattr(e, 'reason', e)}") from None

    def _json_call(self, method: str, path: str, body: Any, timeout: float = CALL_TIMEOUT_S) -> Tuple[int, Any]:
        status, res = self._send(method, self.base + path, body=body, timeout=timeout)
        with res:
            try:
                raw = res.read()
            except (HTTPException, OSError) as e:
                raise Transient(f"{method} {path}: {e}") from None
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = None
        if status == 401:
            raise Unauthorized("the service refused the worker token (401)")
        if status >= 500:
            raise Transient(f"{method} {path}: {status}")
        return status, payload

    @staticmethod
    def _reason(payload: Any) -> str:
        details = payload.get("details") if isinstance(payload, dict) else None
        return str(details.get("reason", "conflict")) if isinstance(details, dict) else "conflict"

    def claim(self, wait_ms: int = DEFAULT_WAIT_MS) -> Optional[Dict[str, Any]]:
        """A task, or None after the long poll (204)."""
        status, payload = self._json_call("POST", f"{API}/claim", {"worker": self.worker_info, "wait_ms": wait_ms},
                                          timeout=wait_ms / 1000 + CALL_TIMEOUT_S)
        if status == 204:
            return None
        if status == 200 and isinstance(payload, dict) and "task_id" in payload:
            return payload
        raise ProtocolError(f"claim answered {status}: {payload}")

    def heartbeat(self, task_id: str, lease: str, progress: Optional[Tuple[int, int]]) -> None:
        body: Dict[str, Any] = {"lease": lease}
        if progress:
            body["progress"] = {"done": progress[0], "total": progress[1]}
        status, payload = self._json_call("POST", f"{API}/tasks/{task_id}/heartbeat", body)
        if status == 409:
            raise TaskGone(self._reason(payload))
        if status != 200:
            raise ProtocolError(f"heartbeat answered {status}: {payload}")

    def complete(self, task_id: str, lease: str, metadata: Dict[str, Any], face_ids: List[int],
                 render_ms: Optional[int] = None) -> None:
        body: Dict[str, Any] = {"lease": lease, "metadata": metadata, "face_ids": face_ids}
        if render_ms is not None:
            body["render_ms"] = render_ms  # optional: the service keeps it for measurements
        status, payload = self._json_call("POST", f"{API}/tasks/{task_id}/complete", body)
        if status == 409:
            raise TaskGone(self._reason(payload))
        if status != 200:
            raise ProtocolError(f"complete answered {status}: {payload}")

    def fail(self, task_id: str, lease: str, description: str, kind: Optional[str] = None) -> str:
        body: Dict[str, Any] = {"lease": lease, "description": description}
        if kind:
            body["kind"] = kind
        status, payload = self._json_call("POST", f"{API}/tasks/{task_id}/fail", body)
        if status == 409:
            raise TaskGone(self._reason(payload))
        if status != 200:
            raise ProtocolError(f"fail answered {status}: {payload}")
        return str(payload.get("status")) if isinstance(payload, dict) else "?"

    def download(self, url: str, dest: str, check: Callable[[], None]) -> str:
        """GET a signed input URL (no Authorization header) to `dest` plus the extension of its
        Content-Type (libraries that go by file name need one); returns the file's path."""
        status, res = self._send("GET", url, auth=False, timeout=60)
        with res:
            if status != 200:
                raise ProtocolError(f"input {_path_only(url)} answered {status}")
            content_type = (res.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            dest += INPUT_EXTENSIONS.get(content_type, "")
            try:
                with open(dest, "wb") as f:
                    while True:
                        check()
                        chunk = res.read(CHUNK)
                        if not chunk:
                            break
                        f.write(chunk)
            except (HTTPException, OSError) as e:
                raise Transient(f"GET {_path_only(url)}: {e}") from None
        return dest

    def upload(self, result: Dict[str, Any], path: str) -> None:
        """PUT the video to the signed result URL."""
        size = os.path.getsize(path)
        if size > int(result.get("max_bytes", size)):
            raise ProtocolError(f"the result is {size} bytes, over the limit of {result['max_bytes']}")
        with open(path, "rb") as f:
            status, res = self._send(result.get("method", "PUT"), result["upload_url"], data=f, auth=False, timeout=120,
                                     headers={"Content-Type": result["content_type"], "Content-Length": str(size)})
            with res:
                res.read()
        if status >= 500:
            raise Transient(f"upload answered {status}")
        if status not in (200, 201, 204):
            raise ProtocolError(f"upload answered {status}")


# ---------------------------------------------------------------------------------------
# One task's context: progress, abort, the processes to stop
# ---------------------------------------------------------------------------------------


class TaskContext:
    """Handed to the renderer. Call `progress()` per frame and `check()` between steps;
    start subprocesses with `popen()` so an abort can stop them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._procs: List[subprocess.Popen] = []
        self._abort_reason: Optional[str] = None
        self._progress: Optional[Tuple[int, int]] = None

    def progress(self, done: int, total: int) -> None:
        self._progress = (done, total)

    @property
    def current_progress(self) -> Optional[Tuple[int, int]]:
        return self._progress

    @property
    def abort_reason(self) -> Optional[str]:
        return self._abort_reason

    def check(self) -> None:
        if self._abort_reason:
            raise Aborted(self._abort_reason)

    def check_lease(self) -> None:
        """Once the video exists a shutdown no longer stops the task (finishing it is quicker
        than handing it back); a lost lease or a cancellation still does."""
        if self._abort_reason not in (None, "shutdown"):
            raise Aborted(self._abort_reason)

    def abort(self, reason: str) -> None:
        with self._lock:
            if self._abort_reason is None:
                self._abort_reason = reason
            procs = list(self._procs)
        for p in procs:
            if p.poll() is None:
                p.kill()

    def popen(self, args: List[str], **kwargs: Any) -> subprocess.Popen:
        self.check()
        p = subprocess.Popen(args, **kwargs)
        with self._lock:
            self._procs.append(p)
            late = self._abort_reason is not None
        if late:
            p.kill()
        return p

    def run(self, args: List[str], **kwargs: Any) -> subprocess.CompletedProcess:
        """Like subprocess.run, stoppable by abort(); raises Aborted when it was stopped."""
        kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("stderr", subprocess.PIPE)
        p = self.popen(args, **kwargs)
        out, err = p.communicate()
        self.check()
        return subprocess.CompletedProcess(args, p.returncode, out, err)


class Heartbeat(threading.Thread):
    """Renews the lease every lease_ms/3 with the latest progress; a 409 aborts the task."""

    def __init__(self, client: ServiceClient, task: Dict[str, Any], ctx: TaskContext):
        super().__init__(name="heartbeat", daemon=True)
        self.client, self.task, self.ctx = client, task, ctx
        self.interval = max(0.2, int(task.get("lease_ms", 30_000)) / 3000)
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(self.interval):
            try:
                self.client.heartbeat(self.task["task_id"], self.task["lease"], self.ctx.current_progress)
            except TaskGone as e:
                if self._halt.is_set():
                    return  # the task ended while this beat was on its way
                log.warning("task %s: %s, stopping its render", self.task["task_id"], e.reason)
                self.ctx.abort(e.reason)
                return
            except Unauthorized:
                log.error("task %s: the worker token was refused, stopping its render", self.task["task_id"])
                self.ctx.abort("unauthorized")
                return
            except (Transient, ProtocolError) as e:
                # The next beat may get through; if none does, the lease runs out and the
                # next call for this task gets 409.
                log.warning("heartbeat: %s", e)

    def stop(self) -> None:
        self._halt.set()


# ---------------------------------------------------------------------------------------
# THE RENDERER: replace this part with your model
# ---------------------------------------------------------------------------------------


@dataclass
class RenderTask:
    """The task's `render` object with every input downloaded to a local file."""

    source_path: str
    #: {"kind": "bank", "category": ..., "name": ...} or {"kind": "video", "path": <local file>}
    driver: Dict[str, Any]
    #: None: animate the dominant face. Else {"size": s, "top_left": [x, y]} in source pixels.
    face: Optional[Dict[str, Any]]
    stitch: bool
    max_animated_faces: int
    mute: bool
    result_format: str  # "mp4" | "mov"
    #: {"kind": "default"} | {"kind": "none"} | {"kind": "image", "path": ..., "position": [x, y]}
    logo: Dict[str, Any]
    overlay_path: Optional[str]
    work_dir: str


@dataclass
class RenderOutput:
    #: What this render measured; it goes onto the animation record (schema in docs/compute-protocol.md).
    metadata: Dict[str, Any]
    #: face_id of every animated face (ids of `metadata["faces"]`).
    face_ids: List[int] = field(default_factory=list)


class Renderer:
    """Turns a RenderTask into a video file at `out_path`.

    Raise a RenderFailure subclass (SourceError, DriverError, FaceError, ...) when the inputs
    are at fault; any other exception means the worker is at fault and the task is retried
    elsewhere. Call ctx.progress(done, total) as frames are made and ctx.check() between
    frames so a lost lease or a shutdown stops the work.
    """

    name = "custom"

    def render(self, task: RenderTask, out_path: str, ctx: TaskContext) -> RenderOutput:
        raise NotImplementedError


class PanRenderer(Renderer):
    """The built-in trivial transform: the picture sways left and right.

    Frame k is the (downscaled) picture rolled horizontally, with wrap-around, by
    round(width/8 * sin(2*pi*k/N)) pixels. No face is detected and nothing is animated:
    it exists to exercise the protocol and the video plumbing, not to look good.
    """

    name = "python-pan"
    #: Side of the result without stitch, as the local renderer and the service's placement
    #: checks (src/compute/result-frame.ts, CROP_RESULT_SIDE) have it; with stitch the result is
    #: the whole picture cut to even sides.
    SIZE = 512
    BANK_SECONDS, BANK_FPS = 2, 25
    MAX_DRIVER_SECONDS = 60

    def __init__(self, ffmpeg: str):
        self.ff = FFmpeg(ffmpeg)

    @staticmethod
    def shift(k: int, n: int, width: int) -> int:
        return round(width / 8 * math.sin(2 * math.pi * k / n))

    def render(self, task: RenderTask, out_path: str, ctx: TaskContext) -> RenderOutput:
        started = time.monotonic()
        picture, width, height = self._source_frame(task, ctx)
        if task.driver["kind"] == "video":
            info = self.ff.probe(task.driver["path"], ctx)
            if not info.has_video:
                raise DriverError("The driver video could not be decoded")
            fps = info.fps or 25.0
            frames = min(self.ff.count_frames(task.driver["path"], ctx), int(self.MAX_DRIVER_SECONDS * fps))
            if frames < 1:
                raise DriverError("The driver video has no frames")
            audio = task.driver["path"] if (not task.mute and info.has_audio) else None
        else:
            fps, frames, audio = float(self.BANK_FPS), self.BANK_SECONDS * self.BANK_FPS, None

        encoder = self.ff.encoder(ctx, width=width, height=height, fps=fps, frames=frames, out_path=out_path,
                                  result_format=task.result_format, audio_path=audio, logo=task.logo,
                                  overlay_path=task.overlay_path, work_dir=task.work_dir)
        try:
            for k in range(frames):
                ctx.check()
                encoder.write(roll_rows(picture, width, height, self.shift(k, frames, width)))
                ctx.progress(k + 1, frames)
        except BaseException:
            encoder.kill()
            raise
        encoder.close()
        elapsed = max(time.monotonic() - started, 1e-6)
        return RenderOutput(
            metadata={
                "num_frames": frames,
                "processing_fps": round(frames / elapsed, 2),
                "resolution": [str(width), str(height)],
                "size_kib": round(os.path.getsize(out_path) / 1024, 1),
                # No head-pose estimate here: a model with one (LivePortrait's motion
                # extractor gives yaw/pitch/roll) reports the source face's pose instead.
                "source_pose": [0, 0, 0],
                "video_fps": round(fps),
                # No face detection here, so no face is claimed and none is animated.
                "faces": [],
            },
            face_ids=[],
        )

    def _source_frame(self, task: RenderTask, ctx: TaskContext) -> Tuple[bytes, int, int]:
        info = self.ff.probe(task.source_path, ctx)
        if not info.has_video or not info.width or not info.height:
            raise SourceError("The source image could not be decoded")
        w, h = info.width, info.height
        if task.stitch:
            out_w, out_h = w & ~1, h & ~1  # H.264 in yuv420p needs even sides
            if out_w < 2 or out_h < 2:
                raise RenderFailure(f"The image is {w}x{h} pixels, too small", kind="InvalidImageResolutionError")
            vf = f"crop={out_w}:{out_h}:0:0"
        else:
            x, y, side = square_in_picture(task.face, w, h)
            out_w = out_h = self.SIZE
            vf = f"crop={side}:{side}:{x}:{y},scale={out_w}:{out_h}:flags=lanczos"
        frame = self.ff.decode_image(task.source_path, vf, ctx)
        if len(frame) != out_w * out_h * 3:
            raise SourceError("The source image could not be decoded")
        return frame, out_w, out_h


def square_in_picture(face: Optional[Dict[str, Any]], w: int, h: int) -> Tuple[int, int, int]:
    """The requested face square cut to the picture, or the central square when none was asked."""
    if not face:
        side = min(w, h)
        return (w - side) // 2, (h - side) // 2, side
    x0, y0 = int(round(face["top_left"][0])), int(round(face["top_left"][1]))
    size = int(face["size"])
    x1, y1 = max(0, x0), max(0, y0)
    side = min(x0 + size, w) - x1, min(y0 + size, h) - y1
    s = min(side)
    if s < 2:
        raise RenderFailure("The face square lies outside the picture", kind="InvalidFaceError")
    return x1, y1, s


def roll_rows(frame: bytes, width: int, height: int, shift: int) -> bytes:
    """Every row of an rgb24 frame rolled right by `shift` pixels (left when negative), wrapping."""
    stride = width * 3
    s = (shift % width) * 3
    if s == 0:
        return frame
    src = memoryview(frame)
    out = bytearray(len(frame))
    for row in range(0, height * stride, stride):
        out[row:row + s] = src[row + stride - s:row + stride]
        out[row + s:row + stride] = src[row:row + stride - s]
    return bytes(out)


# ---------------------------------------------------------------------------------------
# ffmpeg: probing, decoding, encoding (a GPU renderer reuses these for I/O and compositing)
# ---------------------------------------------------------------------------------------


@dataclass
class MediaInfo:
    has_video: bool = False
    width: int = 0
    height: int = 0
    fps: Optional[float] = None
    has_audio: bool = False
    has_alpha: bool = False


_ALPHA_FORMATS = re.compile(r"\b(?:yuva\w*|rgba\w*|bgra|argb|abgr|ya8|ya16\w*|gbrap\w*|rgb32|pal8)\b")


class FFmpeg:
    def __init__(self, path: str):
        self.path = path

    def probe(self, path: str, ctx: TaskContext) -> MediaInfo:
        """What `ffmpeg -i` says about a file (ffprobe is not always shipped)."""
        err = ctx.run([self.path, "-hide_banner", "-nostdin", "-i", path]).stderr.decode("utf-8", "replace")
        info = MediaInfo()
        video = re.search(r"Stream #[^\n]*Video: [^\n]*?, (\d{1,5})x(\d{1,5})[^\n]*", err)
        if video:
            info.has_video, info.width, info.height = True, int(video.group(1)), int(video.group(2))
            fps = re.search(r"([\d.]+) fps", video.group(0)) or re.search(r"([\d.]+) tbr", video.group(0))
            info.fps = float(fps.group(1)) if fps and float(fps.group(1)) > 0 else None
            info.has_alpha = bool(_ALPHA_FORMATS.search(video.group(0)))
        info.has_audio = bool(re.search(r"Stream #[^\n]*Audio:", err))
        return info

    def count_frames(self, path: str, ctx: TaskContext) -> int:
        """Frames of the first video stream, counted from its packets (no decoding)."""
        res = ctx.run([self.path, "-hide_banner", "-nostdin", "-i", path, "-map", "0:v:0", "-c", "copy", "-f", "null", "-"])
        counts = re.findall(r"frame=\s*(\d+)", res.stderr.decode("utf-8", "replace"))
        return int(counts[-1]) if res.returncode == 0 and counts else 0

    def decode_image(self, path: str, vf: str, ctx: TaskContext) -> bytes:
        res = ctx.run([self.path, "-hide_banner", "-nostdin", "-v", "error", "-i", path, "-frames:v", "1", "-vf", vf,
                       "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return res.stdout if res.returncode == 0 else b""

    def place_logo(self, logo: Dict[str, Any], width: int, height: int,
                   ctx: TaskContext) -> Optional[Tuple[str, int, int, int, int]]:
        """(file, x, y, w, h) of the logo on a width x height result, or None for no logo.

        The rules of docs/compute-protocol.md (src/compute/result-frame.ts): the default
        logo bottom right, 22 % of the shorter side wide, 3.5 % margin; an image logo at its
        size with its top-left at `position` (negative counts back from the last pixel).
        """
        kind = logo.get("kind")
        if kind == "default":
            path = logo["path"]
            info = self.probe(path, ctx)
            short = min(width, height)
            w = max(16, round(short * 0.22))
            h = max(1, round(w * info.height / max(1, info.width)))
            margin = round(short * 0.035)
            return path, width - margin - w, height - margin - h, w, h
        if kind != "image":
            return None
        info = self.probe(logo["path"], ctx)
        if not info.has_video or not info.width:
            raise LogoError("The logo image could not be decoded")
        px, py = (int(v) for v in logo.get("position", [0, 0]))
        x, y = (px if px >= 0 else width + px), (py if py >= 0 else height + py)
        if x >= width or y >= height or x + info.width <= 0 or y + info.height <= 0:
            raise LogoError(f"The {info.width}x{info.height} logo at position [{px}, {py}] lies outside the {width}x{height} result")
        return logo["path"], x, y, info.width, info.height

    def encoder(self, ctx: TaskContext, *, width: int, height: int, fps: float, frames: int, out_path: str,
                result_format: str, audio_path: Optional[str], logo: Dict[str, Any], overlay_path: Optional[str],
                work_dir: str) -> "Encoder":
        """An H.264 encoder fed raw rgb24 frames; it composites the overlay and the logo and muxes the sound."""
        args = [self.path, "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-framerate", f"{fps:g}", "-i", "pipe:0"]
        graph: List[str] = []
        label, n_inputs = "0:v", 1
        if overlay_path:
            info = self.probe(overlay_path, ctx)
            if not info.has_video:
                raise OverlayError("The overlay video could not be decoded")
            args += ["-i", overlay_path]
            if info.has_alpha:
                graph.append(f"[{n_inputs}:v]scale={width}:{height},format=rgba[ov];"
                             f"[{label}][ov]overlay=0:0:eof_action=pass:format=auto[withov]")
            else:  # no alpha: screen blend (black is transparent, light adds light)
                graph.append(f"[{n_inputs}:v]scale={width}:{height},format=gbrp[ov];[{label}]format=gbrp[base];"
                             f"[base][ov]blend=all_mode=screen:eof_action=pass[withov]")
            label, n_inputs = "withov", n_inputs + 1
        placed = self.place_logo(logo, width, height, ctx)
        if placed:
            path, x, y, w, h = placed
            args += ["-i", path]
            graph.append(f"[{n_inputs}:v]scale={w}:{h},format=rgba[logo];[{label}][logo]overlay={x}:{y}:format=auto[withlogo]")
            label, n_inputs = "withlogo", n_inputs + 1
        if audio_path:
            args += ["-t", f"{frames / fps:.3f}", "-i", audio_path]
        if graph:
            args += ["-filter_complex", ";".join(graph), "-map", f"[{label}]"]
        else:
            args += ["-map", "0:v:0"]
        if audio_path:
            args += ["-map", f"{n_inputs}:a:0", "-c:a", "aac", "-b:a", "128k", "-ac", "2"]
        else:
            args += ["-an"]
        args += ["-frames:v", str(frames), "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
                 "-movflags", "+faststart", "-f", "mov" if result_format == "mov" else "mp4", out_path]
        return Encoder(ctx, args, os.path.join(work_dir, "encoder.log"))


class Encoder:
    def __init__(self, ctx: TaskContext, args: List[str], log_path: str):
        self.ctx = ctx
        self._log = open(log_path, "w+b")  # a file, not a pipe: a chatty ffmpeg cannot block us
        self.proc = ctx.popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self._log)

    def write(self, frame: bytes) -> None:
        try:
            self.proc.stdin.write(frame)
        except (BrokenPipeError, OSError):
            self.ctx.check()
            raise RuntimeError(f"the encoder stopped: {self._tail()}") from None

    def close(self) -> None:
        """Ends the input and waits for the file; raises when ffmpeg failed or was stopped."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        code = self.proc.wait()
        self.ctx.check()
        if code != 0:
            raise RuntimeError(f"the encoder failed ({code}): {self._tail()}")
        self._log.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._log.close()

    def _tail(self) -> str:
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace").strip()[-500:]


# ---------------------------------------------------------------------------------------
# The worker loop
# ---------------------------------------------------------------------------------------


class Worker:
    def __init__(self, client: ServiceClient, renderer: Renderer, wait_ms: int = DEFAULT_WAIT_MS):
        self.client = client
        self.renderer = renderer
        self.wait_ms = wait_ms
        self.stopping = False
        self._claiming = False
        self._ctx: Optional[TaskContext] = None

    # -- signals ---------------------------------------------------------------------------

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum: int, _frame: Any) -> None:
        if not self.stopping:
            log.info("%s: stopping (no new claims)", signal.Signals(signum).name)
        self.stopping = True
        if self._ctx is not None:
            self._ctx.abort("shutdown")
        elif self._claiming:
            # Leave the long poll now. A task claimed at this very instant is not lost: its
            # lease runs out and another worker takes it.
            raise Aborted("shutdown")

    # -- the loop ----------------------------------------------------------------------------

    def run(self, once: bool = False) -> int:
        backoff = 1.0
        while not self.stopping:
            try:
                self._claiming = True
                try:
                    task = self.client.claim(self.wait_ms)
                finally:
                    self._claiming = False
            except Aborted:
                break
            except Unauthorized as e:
                log.error("%s", e)
                return 2
            except (Transient, ProtocolError) as e:
                log.warning("claim: %s; trying again in %.0f s", e, backoff)
                self._sleep(backoff)
                backoff = min(backoff * 2, 30.0)
                continue
            backoff = 1.0
            if task is None:
                continue
            self.handle(task)
            if once:
                break
        log.info("stopped")
        return 0

    def _sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < end:
            time.sleep(min(0.2, end - time.monotonic()))

    def handle(self, task: Dict[str, Any]) -> None:
        task_id, lease = task["task_id"], task["lease"]
        log.info("task %s: attempt %s", task_id, task.get("attempt"))
        ctx = TaskContext()
        self._ctx = ctx
        if self.stopping:
            ctx.abort("shutdown")
        beat = Heartbeat(self.client, task, ctx)
        beat.start()
        work_dir = tempfile.mkdtemp(prefix="mimic-task-")
        try:
            try:
                inputs = self._download_inputs(task, work_dir, ctx)
                out_path = os.path.join(work_dir, f"result.{inputs.result_format}")
                started = time.monotonic()
                output = self.renderer.render(inputs, out_path, ctx)
                render_ms = round((time.monotonic() - started) * 1000)
                self._retrying(lambda: self.client.upload(task["result"], out_path), ctx.check_lease)
                self._retrying(lambda: self.client.complete(task_id, lease, output.metadata, output.face_ids, render_ms),
                               ctx.check_lease)
                log.info("task %s: done (%s frames)", task_id, output.metadata.get("num_frames"))
            except Exception as e:  # noqa: BLE001 - every outcome is reported below
                self._report_failure(task_id, lease, ctx, e)
        except TaskGone as e:
            log.warning("task %s: no longer ours (%s)", task_id, e.reason)
        except (Unauthorized, Transient, ProtocolError) as e:
            log.error("task %s: could not report its outcome: %s", task_id, e)
        finally:
            beat.stop()
            self._ctx = None
            shutil.rmtree(work_dir, ignore_errors=True)

    def _report_failure(self, task_id: str, lease: str, ctx: TaskContext, err: Exception) -> None:
        reason = ctx.abort_reason or (err.reason if isinstance(err, (Aborted, TaskGone)) else None)
        if isinstance(err, TaskGone) or reason in ("lease_lost", "cancelled", "unauthorized"):
            # The service took the task away: send nothing more for it.
            log.warning("task %s: stopped (%s)", task_id, reason or getattr(err, "reason", "gone"))
            return
        if reason == "shutdown":
            self._retrying(lambda: self.client.fail(task_id, lease, "the worker is shutting down"))
            log.info("task %s: handed back (shutting down)", task_id)
            return
        if isinstance(err, RenderFailure):
            self._retrying(lambda: self.client.fail(task_id, lease, err.description, err.kind))
            log.info("task %s: %s: %s", task_id, err.kind, err.description)
            return
        log.error("task %s: worker fault: %s", task_id, err, exc_info=not isinstance(err, (Transient, ProtocolError)))
        # Without kind: the task goes back to the queue for any worker. The description
        # names the error type only, so no local path or URL leaves this machine.
        self._retrying(lambda: self.client.fail(task_id, lease, f"worker fault: {type(err).__name__}"))

    def _retrying(self, call: Callable[[], Any], check: Optional[Callable[[], None]] = None) -> Any:
        """Calls that must not be lost to a blip: retried on network errors and 5xx."""
        delay = 1.0
        for attempt in range(5):
            if check is not None:
                check()
            try:
                return call()
            except Transient as e:
                if attempt == 4:
                    raise
                log.warning("%s; again in %.0f s", e, delay)
                time.sleep(delay)
                delay *= 2

    def _download_inputs(self, task: Dict[str, Any], work_dir: str, ctx: TaskContext) -> RenderTask:
        r = task["render"]

        def fetch(url: str, name: str) -> str:
            return self._retrying(lambda: self.client.download(url, os.path.join(work_dir, name), ctx.check), ctx.check)

        driver = dict(r["driver"])
        if driver.get("kind") == "video":
            driver = {"kind": "video", "path": fetch(driver["url"], "driver")}
        logo = dict(r.get("logo") or {"kind": "default"})
        if logo.get("kind") == "image":
            logo = {"kind": "image", "path": fetch(logo["url"], "logo"), "position": logo.get("position", [0, 0])}
        elif logo.get("kind") == "default":
            # The service serves its default logo with the task.
            logo = {"kind": "default", "path": fetch(logo["url"], "default-logo")}
        return RenderTask(
            source_path=fetch(r["source_url"], "source"),
            driver=driver,
            face=r.get("face"),
            stitch=bool(r.get("stitch")),
            max_animated_faces=int(r.get("max_animated_faces", 5)),
            mute=bool(r.get("mute", True)),
            result_format=r.get("result_format", "mp4"),
            logo=logo,
            overlay_path=fetch(r["overlay_url"], "overlay") if r.get("overlay_url") else None,
            work_dir=work_dir,
        )


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------


def find_ffmpeg(flag: Optional[str]) -> str:
    candidate = flag or os.environ.get("FFMPEG") or shutil.which("ffmpeg")
    if not candidate or not os.access(candidate, os.X_OK):
        raise SystemExit("ffmpeg not found: pass --ffmpeg PATH, set FFMPEG, or put ffmpeg on the PATH")
    return candidate


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="A mimic compute worker (docs/compute-protocol.md).")
    ap.add_argument("--server", required=True, help="the service's base URL, e.g. https://mimic.example.com")
    ap.add_argument("--token", default=os.environ.get("MIMIC_WORKER_TOKEN"),
                    help="worker token (mwk_...), or env:NAME to read it from that variable; default $MIMIC_WORKER_TOKEN "
                         "(keep it out of the command line: arguments show in ps)")
    ap.add_argument("--name", default=socket.gethostname(), help="this worker's name, shown by `workers list`")
    ap.add_argument("--once", action="store_true", help="handle one task, then exit")
    ap.add_argument("--ffmpeg", help="path of the ffmpeg executable")
    ap.add_argument("--wait-ms", type=int, default=DEFAULT_WAIT_MS, help="claim long-poll, 0-25000 ms")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    if args.token and args.token.startswith("env:"):
        args.token = os.environ.get(args.token[4:])
    if not args.token:
        ap.error("no worker token: pass --token or set MIMIC_WORKER_TOKEN")
    try:
        _origin(args.server)
    except ValueError:
        ap.error("--server must be an http(s) URL")
    if not WORKER_NAME.match(args.name):
        ap.error("--name: 1 to 64 printable ASCII characters, no spaces")
    renderer = PanRenderer(find_ffmpeg(args.ffmpeg))
    client = ServiceClient(args.server, args.token,
                           {"name": args.name, "version": WORKER_VERSION, "backend": renderer.name})
    worker = Worker(client, renderer, wait_ms=args.wait_ms)
    worker.install_signal_handlers()
    log.info("worker %s (%s) polling %s", args.name, renderer.name, args.server)
    return worker.run(once=args.once)


if __name__ == "__main__":
    sys.exit(main())
