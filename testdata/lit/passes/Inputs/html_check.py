"""Loads an hlo-opt --html page in headless chromium and reports, a line each:
how many steps the page holds and how many its script set up, the errors it
raised, how many steps the slider reaches (the page's ?selftest visits each),
and whether a screenshot of it is blank.

Usage: html_check.py PAGE.html SCREENSHOT.png
"""
import pathlib
import re
import struct
import subprocess
import sys
import zlib

CHROMIUM = ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-extensions", "--allow-file-access-from-files", "--virtual-time-budget=5000"]


def dom(url):
    run = subprocess.run(CHROMIUM + ["--enable-logging=stderr", "--v=0", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120)
    body = re.search(r"<body([^>]*)>", run.stdout)
    attributes = dict(re.findall(r'data-([a-z]+)="([^"]*)"', body.group(1))) if body else {}
    console = [l for l in run.stderr.splitlines() if "CONSOLE" in l and ("Uncaught" in l or "ERROR" in l)]
    return attributes, console


def png_pixels(path):
    """(width, height, distinct pixel values) of an 8-bit RGB or RGBA PNG."""
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, width, height, kind = 8, b"", 0, 0, 0
    while at < len(data):
        length, tag = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + length]
        if tag == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and kind in (2, 6), "an 8-bit RGB(A) PNG"
        elif tag == b"IDAT":
            idat += chunk
        at += 12 + length
    raw, step = zlib.decompress(idat), 3 if kind == 2 else 4
    stride, seen, previous = width * step, set(), bytearray(width * step)
    for row in range(height):
        line = raw[row * (stride + 1):(row + 1) * (stride + 1)]
        kind_of_filter, pixels = line[0], bytearray(line[1:])
        for i in range(stride):  # undo the PNG row filters
            left = pixels[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            if kind_of_filter == 1: pixels[i] = (pixels[i] + left) & 255
            elif kind_of_filter == 2: pixels[i] = (pixels[i] + up) & 255
            elif kind_of_filter == 3: pixels[i] = (pixels[i] + (left + up) // 2) & 255
            elif kind_of_filter == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pixels[i] = (pixels[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        for x in range(0, stride, step * 7):
            seen.add(bytes(pixels[x:x + 3]))
        previous = pixels
    return width, height, len(seen)


def main():
    page, shot = pathlib.Path(sys.argv[1]).resolve(), sys.argv[2]
    attributes, console = dom(page.as_uri())
    print(f"loaded: {attributes.get('steps', '?')} steps, ready {attributes.get('ready', 'no')}, "
          f"errors {attributes.get('errors', '').strip() or 'none'}, console errors {len(console)}")
    for line in console:
        print("  " + line)
    attributes, _ = dom(page.as_uri() + "?selftest")
    print(f"every step reachable: {attributes.get('reachable', '?')} of {attributes.get('steps', '?')}")
    subprocess.run(CHROMIUM + ["--window-size=1200,900", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    width, height, colours = png_pixels(shot)
    print(f"screenshot: {width}x{height}, {'not blank' if colours > 8 else 'blank'}")


main()
