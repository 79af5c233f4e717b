"""Writes the client's three short sounds (move.wav, turn.wav, end.wav) from sine tones.

Run from anywhere: ``python scripts/make_sounds.py`` (it writes into
``tessera/web/sounds/``). Mono, 22 050 Hz, 16 bit; each
note has a short attack and an exponential decay so that it does not click.
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

RATE = 22050
HERE = Path(__file__).resolve().parent.parent / "tessera" / "web" / "sounds"


def note(freq: float, seconds: float, volume: float = 0.5, decay: float = 8.0) -> np.ndarray:
    t = np.arange(int(RATE * seconds)) / RATE
    env = np.minimum(1.0, t / 0.004) * np.exp(-decay * t)
    tone = np.sin(2 * np.pi * freq * t) + 0.25 * np.sin(4 * np.pi * freq * t)
    return volume * env * tone / 1.25


def write(name: str, samples: np.ndarray) -> None:
    data = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    with wave.open(str(HERE / name), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(data)


def main() -> None:
    # a move: one short wooden-ish click of a low note
    write("move.wav", note(440.0, 0.09, 0.55, decay=40.0))
    # your turn: two rising notes
    write("turn.wav", np.concatenate([note(660.0, 0.11, 0.4, 18.0), note(880.0, 0.16, 0.4, 12.0)]))
    # game over: three notes, a major arpeggio going up
    write(
        "end.wav",
        np.concatenate([note(523.3, 0.14, 0.4, 10.0), note(659.3, 0.14, 0.4, 10.0), note(784.0, 0.4, 0.45, 5.0)]),
    )


if __name__ == "__main__":
    main()
