#!/usr/bin/env python3
"""Every JSON file's "accuracy" equals the first's (to 1e-9; the accuracy is
a count of predicted positions over their number, so runs that agree give
the same fraction)."""
import json
import sys

values = [(p, json.load(open(p))['accuracy']) for p in sys.argv[1:]]
for path, value in values[1:]:
    if abs(value - values[0][1]) > 1e-9:
        sys.exit('%s: accuracy %.9g differs from %.9g (%s)' % (path, value, values[0][1], values[0][0]))
print('same accuracy %.9g in %d runs' % (values[0][1], len(values)))
