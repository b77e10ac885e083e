#!/usr/bin/env python3
"""Unit tests of gpu_check.py's pure parts, on any machine:
  python3 bench/gpu/gpu_check_test.py
"""
import array
import os
import shutil
import sys
import tarfile
import tempfile
import time
import unittest

TMP = tempfile.mkdtemp(prefix='gpu_check_test.')
os.environ['TPC_CHECK_OUT'] = os.path.join(TMP, 'out')
os.environ['TPC_CHECK_LOGS'] = os.path.join(TMP, 'logs')
os.environ['TPC_CHECK_BACKEND'] = 'cuda'
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check as gc  # noqa: E402


def logits_bytes(rows):
    return array.array('f', [x for row in rows for x in row]).tobytes()


class Margins(unittest.TestCase):
    def test_margin_is_relative_to_the_largest_logit_above_one(self):
        m = gc.top2_margins(logits_bytes([[0.1, 0.5, 0.3], [4.0, -8.0, 3.0]]), 3)
        self.assertAlmostEqual(m[0], 0.2, places=6)      # scale 1
        self.assertAlmostEqual(m[1], 1.0 / 8.0, places=6)

    def test_a_partial_row_is_ignored(self):
        data = logits_bytes([[1.0, 0.0]]) + b'\0\0\0\0'
        self.assertEqual(len(gc.top2_margins(data, 2)), 1)


class Greedy(unittest.TestCase):
    # Prompt of 2; rows 1.. choose the new ids.
    ref = [7, 8, 1, 2, 3, 4]

    def test_fp32_is_exact(self):
        self.assertEqual(gc.greedy_verdict(self.ref, list(self.ref), 2),
                         (True, 'identical ids'))
        ok, text = gc.greedy_verdict(self.ref, [7, 8, 1, 2, 9, 4], 2)
        self.assertFalse(ok)
        self.assertIn('cpu [7 8 1 2 3 4]', text)

    def test_bf16_difference_at_a_clear_margin_fails(self):
        margins = [0.5] * 5
        ok, text = gc.greedy_verdict(self.ref, [7, 8, 1, 2, 9, 9], 2, margins,
                                     gc.BF16_MARGIN)
        self.assertFalse(ok)
        self.assertIn('new token 3 differs (cpu 3, cuda 9)', text)

    def test_bf16_difference_at_a_near_tie_ends_the_comparison(self):
        margins = [0.5, 0.5, 0.5, gc.BF16_MARGIN / 2, 0.5]
        ok, text = gc.greedy_verdict(self.ref, [7, 8, 1, 2, 9, 5], 2, margins,
                                     gc.BF16_MARGIN)
        self.assertTrue(ok, text)
        self.assertIn('ids agree up to new token 3, a near tie', text)

    def test_bf16_near_ties_that_agree_are_counted(self):
        margins = [0.5, 0.01, 0.5, 0.5, 0.5]
        ok, text = gc.greedy_verdict(self.ref, list(self.ref), 2, margins,
                                     gc.BF16_MARGIN)
        self.assertTrue(ok)
        self.assertIn('identical ids (1 of 4 new tokens near ties', text)

    def test_bf16_prompt_and_lengths_must_agree(self):
        margins = [0.5] * 5
        self.assertFalse(gc.greedy_verdict(self.ref, [7, 9, 1, 2, 3, 4], 2,
                                           margins, gc.BF16_MARGIN)[0])
        self.assertFalse(gc.greedy_verdict(self.ref, self.ref[:-1], 2, margins,
                                           gc.BF16_MARGIN)[0])


GTEST_OUT = '''Note: Google Test filter = A.a:A.b:A.c:B/C.d/cuda_f32:A.e
[ RUN      ] A.a
[       OK ] A.a (1 ms)
[ RUN      ] A.b
x.cpp:10: Failure
Expected equality of these values:
  1
  2
[  FAILED  ] A.b (0 ms)
[ RUN      ] A.c
x.cpp:20: Skipped
no GPU
[  SKIPPED ] A.c (0 ms)
[ RUN      ] B/C.d/cuda_f32
[  FAILED  ] B/C.d/cuda_f32, where GetParam() = cuda f32 (3 ms)
[==========] 4 tests ran.
[  PASSED  ] 1 test.
[  SKIPPED ] 1 test, listed below:
[  SKIPPED ] A.c
[  FAILED  ] 2 tests, listed below:
[  FAILED  ] A.b
[  FAILED  ] B/C.d/cuda_f32, where GetParam() = cuda f32
'''


class Gtest(unittest.TestCase):
    names = ['A.a', 'A.b', 'A.c', 'B/C.d/cuda_f32', 'A.e']

    def test_status(self):
        self.assertEqual(gc.gtest_status(GTEST_OUT, self.names), {
            'A.a': 'passed', 'A.b': 'failed', 'A.c': 'skipped',
            'B/C.d/cuda_f32': 'failed', 'A.e': 'unfinished'})

    def test_failure_lines_are_the_assertion(self):
        self.assertEqual(gc.failure_lines(GTEST_OUT, '', 'A.b'), [
            'x.cpp:10: Failure', 'Expected equality of these values:', '  1', '  2'])
        self.assertEqual(gc.failure_lines(GTEST_OUT, '', 'A.c'),
                         ['x.cpp:20: Skipped', 'no GPU'])

    def test_a_crash_shows_stderr(self):
        out = '[ RUN      ] A.a\npartial\n'
        self.assertEqual(gc.failure_lines(out, 'boom\nSegmentation fault', 'A.a'),
                         ['partial', 'boom', 'Segmentation fault'])

    def test_groups_by_storage_type(self):
        tests = [('r', 'E/Conformance.X/cuda_f32'), ('r', 'E/Conformance.Y/cuda_f32'),
                 ('r', 'E/Conformance.X/cuda_bf16'), ('r', 'CudaBackend.Z'),
                 ('e', 'CudaCollectives.W')]
        self.assertEqual(gc.group_tests(tests, 'cuda'), {
            'cuda f32': ('r', ['E/Conformance.X/cuda_f32', 'E/Conformance.Y/cuda_f32']),
            'cuda bf16': ('r', ['E/Conformance.X/cuda_bf16']),
            'CudaBackend': ('r', ['CudaBackend.Z']),
            'CudaCollectives': ('e', ['CudaCollectives.W'])})


DEV_SKIPS = '''[ RUN      ] E/Conformance.Cast/cuda_bf16
t.cpp:705: Skipped
the examples start from f32 values
[  SKIPPED ] E/Conformance.Cast/cuda_bf16 (0 ms)
[ RUN      ] E/Conformance.Gemm/cuda_bf16
t.cpp:76: Skipped
no CUDA device
[  SKIPPED ] E/Conformance.Gemm/cuda_bf16 (0 ms)
[ RUN      ] CudaBackend.Copies
t.cpp:40: Skipped
the examples start from f32 values
[  SKIPPED ] CudaBackend.Copies (0 ms)
'''
CPU_SKIPS = '''[ RUN      ] E/Conformance.Cast/cpu_bf16_openblas
t.cpp:705: Skipped
the examples start from f32 values
[  SKIPPED ] E/Conformance.Cast/cpu_bf16_openblas (0 ms)
[ RUN      ] E/Conformance.Cast/cpu_bf16_onednn
t.cpp:79: Skipped
no oneDNN in this build
[  SKIPPED ] E/Conformance.Cast/cpu_bf16_onednn (0 ms)
[ RUN      ] E/Conformance.Gemm/cpu_bf16_onednn
t.cpp:79: Skipped
no oneDNN in this build
[  SKIPPED ] E/Conformance.Gemm/cpu_bf16_onednn (0 ms)
[ RUN      ] E/Conformance.Gemm/cpu_bf16_openblas
[       OK ] E/Conformance.Gemm/cpu_bf16_openblas (1 ms)
'''


class SkipsOnAGpu(unittest.TestCase):
    def test_counterpart(self):
        self.assertEqual(gc.cpu_counterpart('E/Conformance.Cast/cuda_bf16'),
                         'E/Conformance.Cast/cpu_bf16*')
        self.assertIsNone(gc.cpu_counterpart('CudaBackend.Copies'))

    def test_only_a_skip_the_cpu_makes_too_is_allowed(self):
        skipped = ['E/Conformance.Cast/cuda_bf16', 'E/Conformance.Gemm/cuda_bf16',
                   'CudaBackend.Copies']
        self.assertEqual(gc.skipped_as_on_cpu(DEV_SKIPS, CPU_SKIPS, skipped),
                         {'E/Conformance.Cast/cuda_bf16'})
        self.assertEqual(gc.skipped_as_on_cpu(DEV_SKIPS, '', skipped), set())


class DeadlineAndOut(unittest.TestCase):
    def setUp(self):
        os.makedirs(gc.OUT, exist_ok=True)
        gc.rows.clear()

    def test_deadline(self):
        d = gc.Deadline(time.time(), 100, reserve=10)
        self.assertTrue(d.allows(80))
        self.assertFalse(d.allows(95))
        self.assertLessEqual(d.timeout(300), 90)
        self.assertEqual(gc.Deadline(time.time() - 50, 10).timeout(300), 1.0)

    def test_a_step_past_the_deadline_is_a_skipped_row(self):
        gc.deadline = gc.Deadline(time.time(), 30, reserve=10)
        self.assertTrue(gc.step_allowed('s', 'fits', 5))
        self.assertFalse(gc.step_allowed('s', 'too long', 60))
        self.assertEqual(gc.rows[0][3], 'skipped')
        self.assertEqual(gc.verdict_of(gc.rows),
                         'INCOMPLETE (1 rows skipped at the deadline)')
        with open(os.path.join(gc.OUT, gc.TABLE)) as f:
            self.assertIn('| s | too long | skipped: ', f.read())

    def test_a_section_this_machine_cannot_run_is_neither_pass_nor_fail(self):
        gc.add_row('two ranks', 'tp2', 'not run: 1 GPU', gc.NOT_APPLICABLE)
        gc.add_row('parity', 'x', 'fine', 'ok')
        self.assertEqual(gc.verdict_of(gc.rows), 'PASS')
        gc.add_row('parity', 'y', 'broken', 'FAIL')
        self.assertEqual(gc.verdict_of(gc.rows), 'FAIL (1 rows failed)')

    def test_two_ranks_on_one_gpu_is_not_applicable(self):
        saved = gc.gpu_count
        gc.gpu_count = lambda: 1
        try:
            gc.two_ranks()
        finally:
            gc.gpu_count = saved
        self.assertEqual([r[3] for r in gc.rows], [gc.NOT_APPLICABLE] * 2)
        self.assertIn('1 GPU on this machine', gc.rows[0][2])

    def test_archive_keeps_head_and_tail_of_a_large_log(self):
        logs = os.path.join(TMP, 'big')
        os.makedirs(os.path.join(logs, 'sub'))
        with open(os.path.join(logs, 'small.log'), 'w') as f:
            f.write('small')
        with open(os.path.join(logs, 'sub', 'big.log'), 'wb') as f:
            f.write(b'H' + os.urandom(3 << 20) + b'T')
        path = os.path.join(TMP, 'a.tar.gz')
        cap = gc.write_archive(logs, path, limit=1 << 20)
        self.assertEqual(cap, 256 << 10)
        self.assertLessEqual(os.path.getsize(path), 1 << 20)
        with tarfile.open(path) as tar:
            self.assertEqual(sorted(tar.getnames()),
                             ['logs/small.log', 'logs/sub/big.log'])
            big = tar.extractfile('logs/sub/big.log').read()
        self.assertTrue(big.startswith(b'H') and big.endswith(b'T'))
        self.assertIn(b'bytes left out', big)


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == '__main__':
    unittest.main()
