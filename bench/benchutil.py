"""What the benchmarks share: the tools of a build, mpirun, the
environment their MPI jobs run in, logged commands and a work directory. Each function exits naming the bench
(`who`) when something is missing."""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def tools_of(build_dir, who):
    """tpc-model, tpc-compile and tpc-run of a build."""
    bindir = os.path.join(build_dir, 'bin')
    tools = {t: os.path.join(bindir, t) for t in ('tpc-model', 'tpc-compile', 'tpc-run')}
    for t, path in tools.items():
        if not os.access(path, os.X_OK):
            sys.exit('%s: %s not found; build it first (ninja -C %s tpc-model '
                     'tpc-compile tpc-run) or give another build directory' % (who, path, build_dir))
    return tools


def mpirun_of(who, why):
    mpirun = shutil.which('mpirun')
    if not mpirun:
        sys.exit('%s: mpirun not found (openmpi-bin); %s needs it' % (who, why))
    return mpirun


def mpi_env(work):
    """The environment of mpirun jobs whose files live under `work`."""
    env = dict(os.environ)
    if hasattr(os, 'geteuid') and os.geteuid() == 0:
        env['OMPI_ALLOW_RUN_AS_ROOT'] = '1'
        env['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM'] = '1'
    # Open MPI's session files in a directory of this run's: jobs of other
    # runs (tests side by side) sharing one would remove it under each other.
    env['TMPDIR'] = tempfile.mkdtemp(prefix='mpi-', dir=work)
    return env


def run(cmd, log, who, env=None):
    """Runs cmd, appending it and its output to log; returns (stdout,
    stderr), or exits with the output on failure."""
    with open(log, 'a') as f:
        f.write('$ ' + ' '.join(cmd) + '\n')
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    with open(log, 'a') as f:
        f.write(p.stdout + p.stderr)
    if p.returncode != 0:
        sys.exit('%s: %s failed (exit %d):\n%s%s' % (who, cmd[0], p.returncode, p.stdout, p.stderr))
    return p.stdout, p.stderr


def work_dir(given, prefix):
    """The run's directory (`given`, or a new temporary one), its command
    log, and a function naming a file in it."""
    work = given or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(work, exist_ok=True)
    return work, os.path.join(work, 'commands.log'), lambda name: os.path.join(work, name)


def steps_of(path, count=None, who=None):
    """The steps of a tpc-run JSON-lines log; with `count`, exactly that many
    (the run ends otherwise, naming the log)."""
    with open(path) as f:
        steps = [json.loads(line) for line in f if line.startswith('{')]
    if count is not None and len(steps) != count:
        sys.exit('%s: %s: expected %d steps, found %d' % (who, path, count, len(steps)))
    return steps
