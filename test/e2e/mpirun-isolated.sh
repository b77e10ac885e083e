#!/bin/sh
# mpirun --oversubscribe with a session directory of its own: lit's %mpirun.
#
# Open MPI keeps a job's session files in $TMPDIR/ompi.<host>.<uid>/pid.<pid>
# and the job that finishes last removes the shared ompi.<host>.<uid>; a job
# starting at that moment fails ("A call to mkdir was unable to create the
# desired directory"). lit runs tests side by side under one TMPDIR, so each
# job gets a directory of its own inside it (lit removes its TMPDIR at the
# end). exec keeps mpirun's pid, which the signal tests aim at.
dir=$(mktemp -d) || exit 1
TMPDIR=$dir exec mpirun --oversubscribe "$@"
