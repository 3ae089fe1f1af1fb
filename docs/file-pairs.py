#!/usr/bin/env python3
"""Pairs of lock-core production files where each names the other (comments and the shared logger category aside),
as docs/architecture.md reports them. Run: python3 docs/file-pairs.py"""
import itertools
import os
import re

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lock-core", "src", "main", "java", "io", "locktable")
names = sorted(f[:-5] for f in os.listdir(root) if f.endswith(".java") and f != "package-info.java")
code = {}
for name in names:
    text = open(os.path.join(root, name + ".java")).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//.*", "", text)
    code[name] = text.replace("getLogger(LockTable.class)", "")
refers = {a: {b for b in names if b != a and re.search(r"\b" + b + r"\b", code[a])} for a in names}
pairs = [(a, b) for a, b in itertools.combinations(names, 2) if b in refers[a] and a in refers[b]]
for a, b in pairs:
    print(f"{a} <-> {b}")
print(f"{len(pairs)} pairs")
