#!/usr/bin/env python3
"""Writes the Lottie files the benchmarks run (written here, not taken from elsewhere):

- loader-12.json: 12 layers under a turning null, each an animated ring stroke trimmed along it
  (an icon-class file: the kind of spinner a screen shows many of);
- logo-48.json: 48 layers in parenting chains, 40 of them strokes with animated trims, 8 fills
  morphing, positions along spatial tangents (a mid-size file: a logo build-up).

Deterministic: the same files on every run. Usage: python3 make-files.py [DIR]
"""
import json, math, sys, os

def static(v): return {"a": 0, "k": v}
def keys(frames_values, ease=((0.42, 0), (0.58, 1)), spatial=None):
    k = []
    for i, (t, v) in enumerate(frames_values):
        key = {"t": t, "s": v if isinstance(v, list) else [v]}
        if i < len(frames_values) - 1:
            key["o"] = {"x": [ease[0][0]], "y": [ease[0][1]]}
            key["i"] = {"x": [ease[1][0]], "y": [ease[1][1]]}
            if spatial:
                key["to"], key["ti"] = spatial[i]
        k.append(key)
    return {"a": 1, "k": k}
def transform(p=(0, 0), a=(0, 0), s=(100, 100), r=0, o=100):
    return {"a": a if isinstance(a, dict) else static(list(a)), "p": p if isinstance(p, dict) else static(list(p)),
            "s": s if isinstance(s, dict) else static(list(s)), "r": r if isinstance(r, dict) else static(r),
            "o": o if isinstance(o, dict) else static(o)}
def group(items, **tr):
    t = {"ty": "tr"}   # "ty" first, as exporters write it (rlottie 0.1 needs it before the fields)
    t.update(transform(**tr))
    return {"ty": "gr", "it": items + [t]}
def layer(ind, name, shapes=None, ty=4, parent=None, op=120, **tr):
    l = {"ddd": 0, "ty": ty, "ind": ind, "nm": name, "ip": 0, "op": op, "st": 0, "ks": transform(**tr)}
    if parent is not None: l["parent"] = parent
    if shapes is not None: l["shapes"] = shapes
    return l
def comp(name, layers, op=120, w=512, h=512):
    return {"v": "5.7.0", "nm": name, "fr": 60, "ip": 0, "op": op, "w": w, "h": h, "layers": layers}

def loader():
    layers = [layer(1, "spin", ty=3, p=(256, 256), r=keys([(0, 0), (120, 360)], ease=((0, 0), (1, 1))))]
    for i in range(12):
        phase = i * 10
        ring = [
            {"ty": "el", "p": static([0, 0]), "s": static([60 + 30 * i, 60 + 30 * i]), "d": 1},
            {"ty": "st", "c": static([0.2 + 0.05 * i, 0.4, 0.9, 1]), "o": static(100), "w": static(6), "lc": 2, "lj": 2},
            {"ty": "tm", "s": keys([(phase % 60, 0), (60 + phase % 60, 70), (120, 0)]),
             "e": keys([(0, 10), (60, 100), (120, 10)]), "o": keys([(0, 0), (120, 720)], ease=((0, 0), (1, 1))), "m": 1},
        ]
        layers.append(layer(i + 2, "ring %d" % i, ring, parent=1, r=static(i * 30)))
    return comp("loader-12", layers)

def logo():
    layers = [layer(1, "root", ty=3, p=(256, 256), s=keys([(0, [80, 80]), (60, [100, 100])]))]
    ind = 2
    for chain in range(8):
        angle = chain * math.pi / 4
        head = ind
        layers.append(layer(ind, "arm %d" % chain, ty=3, parent=1, r=static(math.degrees(angle)),
                            p=keys([(0, [0, 0]), (40 + chain * 5, [120, 0])], spatial=[([40, -30], [-40, 30])])))
        ind += 1
        parent = head
        for j in range(5):
            length = 40 + 10 * j
            shape = [
                {"ty": "sh", "ks": static({"c": False, "v": [[0, 0], [length, 0], [length, 20]], "i": [[0, 0], [-10, 0], [0, -5]], "o": [[10, 0], [0, 5], [0, 0]]})},
                {"ty": "st", "c": static([0.1 * j, 0.5, 1 - 0.1 * chain, 1]), "o": static(100), "w": static(4 + j), "lc": 2, "lj": 2},
                {"ty": "tm", "s": static(0), "e": keys([(j * 6, 0), (30 + j * 6, 100)]), "o": static(0), "m": 1},
            ]
            if j == 4:
                shape = [group([
                    {"ty": "sh", "ks": keys([(0, [{"c": True, "v": [[0, -10], [10, 0], [0, 10], [-10, 0]], "i": [[-5, 0], [0, -5], [5, 0], [0, 5]], "o": [[5, 0], [0, 5], [-5, 0], [0, -5]]}]),
                                             (60, [{"c": True, "v": [[0, -20], [20, 0], [0, 20], [-20, 0]], "i": [[-11, 0], [0, -11], [11, 0], [0, 11]], "o": [[11, 0], [0, 11], [-11, 0], [0, -11]]}])])},
                    {"ty": "fl", "c": static([1, 0.6, 0.1 * chain, 1]), "o": keys([(0, 0), (30, 100)])},
                ], p=(length, 0))]
            layers.append(layer(ind, "segment %d.%d" % (chain, j), shape, parent=parent, p=(length if j else 20, 0),
                                r=keys([(0, 0), (90, 15 * (j + 1))])))
            parent = ind
            ind += 1
    return comp("logo-48", layers)

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for name, doc in [("loader-12", loader()), ("logo-48", logo())]:
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print(name, sum(1 for _ in doc["layers"]), "layers")
