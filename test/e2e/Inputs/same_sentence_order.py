#!/usr/bin/env python3
"""same_sentence_order.py RTOL A.json B.json ...: every JSON file's
"sop_loss" equals the first's within relative RTOL and its "sop_accuracy"
exactly (a count of rows over their number)."""
import json
import sys

rtol = float(sys.argv[1])
runs = [(p, json.load(open(p))) for p in sys.argv[2:]]
first_path, first = runs[0]
for path, run in runs[1:]:
    for key in ('sop_loss', 'sop_accuracy'):
        if key not in run:
            sys.exit('%s: no "%s"' % (path, key))
    if abs(run['sop_loss'] - first['sop_loss']) > rtol * abs(first['sop_loss']):
        sys.exit('%s: sop_loss %.9g differs from %.9g (%s) by more than %g relative'
                 % (path, run['sop_loss'], first['sop_loss'], first_path, rtol))
    if abs(run['sop_accuracy'] - first['sop_accuracy']) > 1e-9:
        sys.exit('%s: sop_accuracy %.9g differs from %.9g (%s)'
                 % (path, run['sop_accuracy'], first['sop_accuracy'], first_path))
print('same sentence-order loss %.9g and accuracy %.9g in %d runs'
      % (first['sop_loss'], first['sop_accuracy'], len(runs)))
