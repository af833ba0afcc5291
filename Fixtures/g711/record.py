"""Records the G.711 reference output in this folder (Fixtures/README.md): Python 3.11's
audioop (Sun's g711.c; the module is gone from Python 3.13, so run it with Debian 12's
python3). Usage: python3 -W ignore Fixtures/g711/record.py"""
import audioop
import pathlib
import struct

folder = pathlib.Path(__file__).parent
pcm = b"".join(struct.pack("<h", v) for v in range(-32768, 32768))
(folder / "pcmu-of-every-sample.bin").write_bytes(audioop.lin2ulaw(pcm, 2))
(folder / "pcma-of-every-sample.bin").write_bytes(audioop.lin2alaw(pcm, 2))
(folder / "pcmu-decoded.bin").write_bytes(audioop.ulaw2lin(bytes(range(256)), 2))
(folder / "pcma-decoded.bin").write_bytes(audioop.alaw2lin(bytes(range(256)), 2))
