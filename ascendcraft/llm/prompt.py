"""The generation prompt: language reference, Ascend rules, expert examples, the op and its shapes.

Templates live in ``templates/*.j2`` beside this file (jinja2, StrictUndefined: a missing
value is an error, never an empty hole in a prompt).

Where the texts come from:

* the language reference is ``docs/dsl.md``: in a source checkout (editable install) it is
  read from the repository; an installed wheel carries it as package data
  ``ascendcraft/data/docs/dsl.md``. Without it there is no prompt worth sending, so its
  absence is an error.
* expert examples are ``examples/<category>/<op>/{op.py,kernel.dsl}``: from the repository,
  else the package data ``ascendcraft/data/examples/``, else none (with a warning in the
  report): the prompt still works, it is only weaker.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..errors import UserError

_REPO = Path(__file__).resolve().parents[2]      # the checkout holding ascendcraft/, docs/, examples/
_REFERENCE_TITLE = "# The ascendcraft tile DSL"
#: examples shown when the op's category has none (element-wise with an attribute, then a multi-pass row op)
DEFAULT_EXAMPLES = ("activation/leaky_relu", "activation/softmax")
#: where to look next when a category has too few examples
RELATED = {"fuse": ("matmul", "convolution"), "matmul": ("fuse",), "reduce": ("normalization", "index"),
           "loss": ("reduce",), "normalization": ("reduce",), "math": ("reduce",), "pooling": ("activation",),
           "index": ("reduce",), "broadcast": ("activation",), "attention": ("matmul", "activation"),
           "convolution": ("matmul", "pooling"), "resize": ("index", "pooling")}
# Category guesses from the reference code, most specific first (the first match wins).
_CATEGORY_HINTS = (
    ("attention", r"(?s)scaled_dot_product_attention|MultiheadAttention|[Aa]ttention|\battn|\bmha\b|"
                  r"softmax.*(@|matmul|einsum|bmm)|(@|matmul|einsum|bmm).*softmax"),
    ("convolution", r"[Cc]onv(1|2|3)d|ConvTranspose|conv_transpose|F\.conv"),
    ("resize", r"interpolate|[Uu]psample|grid_sample|affine_grid"),
    ("loss", r"loss|cross_entropy|nll|kl_div|hinge|margin_ranking|triplet|cosine_embedding"),
    ("optimizer", r"momentum|adam|sgd|rmsprop|adagrad|\blr\b|learning_rate|weight_decay"),
    ("index", r"gather|scatter|index_(select|add|copy|fill|put)|take_along_dim|[Ee]mbedding|argmax|argmin|"
              r"masked_fill|masked_scatter|\bx\[[^\]]*idx"),
    ("pooling", r"pool"),
    ("normalization", r"norm\b|norm\(|Norm|normalize|rms"),
    ("fuse", r"(?s)(matmul|\bmm\(|bmm|@|Linear).*(relu|gelu|sigmoid|tanh|bias|\+)"),
    ("matmul", r"matmul|\bmm\(|bmm|@|einsum|Linear"),
    ("math", r"cumsum|cumprod|cummax|cummin"),
    ("broadcast", r"broadcast|expand(_as)?\(|\.view\(1, *-1|\[None|unsqueeze\(|torch\.where\(|torch\.pow\("),
    ("activation", r"relu|gelu|sigmoid|tanh|softmax|elu|swish|silu|mish|softplus|softsign|hardtanh|hardsigmoid"),
    ("reduce", r"\b(sum|mean|max|min|prod|amax|amin|argmax|argmin|norm)\("),
)


def _template_env():
    import jinja2
    return jinja2.Environment(loader=jinja2.PackageLoader("ascendcraft.llm", "templates"),
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True, autoescape=False)


def render(template: str, **values) -> str:
    return _template_env().get_template(template).render(**values).strip() + "\n"


# --------------------------------------------------------------------------- texts shipped with us

def reference_text() -> str:
    """docs/dsl.md, from the checkout or from the package data."""
    candidates = [_REPO / "docs" / "dsl.md", resources.files("ascendcraft") / "data" / "docs" / "dsl.md"]
    for path in candidates:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, FileNotFoundError):
            continue
        if text.startswith(_REFERENCE_TITLE):
            return text
    raise UserError("the tile-DSL language reference (docs/dsl.md) is not installed, so no prompt can be built",
                    hint="reinstall ascendcraft from a complete source tree, or run from a checkout")


def examples_root() -> Path | None:
    """The examples folder: the checkout's ``examples/``, else the package's ``data/examples``."""
    for root in (_REPO / "examples", Path(str(resources.files("ascendcraft") / "data" / "examples"))):
        if any(root.glob("*/*/kernel.dsl")):
            return root
    return None


@dataclass(frozen=True)
class Example:
    category: str
    name: str
    op_source: str
    kernel_source: str

    @property
    def id(self) -> str:
        return f"{self.category}/{self.name}"


@lru_cache(maxsize=8)
def load_examples(root: Path) -> tuple[Example, ...]:
    out = []
    for kernel in sorted(root.glob("*/*/kernel.dsl")):
        op = kernel.with_name("op.py")
        if op.is_file():
            out.append(Example(kernel.parent.parent.name, kernel.parent.name, op.read_text(encoding="utf-8"),
                               kernel.read_text(encoding="utf-8")))
    return tuple(out)


# --------------------------------------------------------------------------- choosing examples

def _model_code(source: str) -> str:
    """The Model class's code without comments and docstrings (what the op does, not what it says)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for sub in ast.walk(node):
                body = getattr(sub, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                        and isinstance(getattr(body[0], "value", None), ast.Constant) \
                        and isinstance(body[0].value.value, str):
                    body[0] = ast.Pass()
            return ast.unparse(node)
    return source


def infer_category(source: str) -> str | None:
    code = _model_code(source)
    for category, pattern in _CATEGORY_HINTS:
        if re.search(pattern, code):
            return category
    return None


def _tokens(name: str) -> set[str]:
    return {t for t in re.split(r"[^a-z0-9]+", name.lower()) if t}


def _identifiers(source: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w+", _model_code(source)))


def _similarity(task, example: Example) -> float:
    """Shared words of the op names first, then how alike the Model code is (Jaccard of identifiers)."""
    a, b = _identifiers(task.source), _identifiers(example.op_source)
    return 2 * len(_tokens(task.name) & _tokens(example.name)) + len(a & b) / max(len(a | b), 1)


#: The category of the bundled group-task examples (generic kernels: examples/npukernelbench/).
GROUP_EXAMPLES = "npukernelbench"


def choose_examples(task, examples: tuple[Example, ...], limit: int = 2) -> tuple[list[Example], str | None]:
    """Up to ``limit`` examples for ``task`` and the category used.

    The category is the task's folder (``.../<category>/<op>.py``) when examples exist for
    it, else one guessed from the reference code. Within a category the examples most like
    the op come first (shared name words, then shared identifiers in the Model code). An example of the op itself is never shown
    (generation must not be copying), and related categories, then the defaults, fill up.
    """
    if limit <= 0 or not examples:
        return [], None
    categories = {e.category for e in examples}
    category = task.category if task.category in categories else infer_category(task.source)
    usable = [e for e in examples if e.name != task.name and e.kernel_source.strip()]

    def ranked(cat):
        return sorted((e for e in usable if e.category == cat), key=lambda e: (-_similarity(task, e), e.name))

    chosen: list[Example] = []
    if getattr(task, "groups", None):       # a group task: first a kernel that serves groups
        chosen += ranked(GROUP_EXAMPLES)[:1]
    order = [category, *RELATED.get(category, ())] if category else []
    for cat in order:
        chosen += [e for e in ranked(cat) if e not in chosen]
    chosen += [e for d in DEFAULT_EXAMPLES for e in usable if e.id == d and e not in chosen]
    return chosen[:limit], category


# --------------------------------------------------------------------------- the op

def _real_outputs(task) -> list[str]:
    # the output shapes found without running anything; asking TaskShapes.output_specs for them
    # could run the reference at full benchmark size when the meta device failed
    ev = getattr(task.real, "_ev", None)
    specs = getattr(ev, "output_specs", None)
    return [str(s) for s in specs] if specs else []


def _init_params(source: str) -> set[str]:
    """Names of Model.__init__'s parameters (the attributes a constructor sets)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and f.name == "__init__":
                    a = f.args
                    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    return set()


def op_facts(task, shapes, category: str | None = None) -> dict:
    from ..groups import group_lines
    real = task.real
    init = ", ".join(repr(a) for a in real.init_args)
    ctor = _init_params(task.source)
    scalars = {k: v for k, v in real.attributes.items() if isinstance(v, (bool, int, float))}
    attrs = ", ".join(f"{k} = {v!r}" for k, v in scalars.items() if k in ctor)
    consts = ", ".join(f"{k} = {v!r}" for k, v in scalars.items() if k not in ctor)
    verification = ""
    if shapes is not None and shapes.reduced:
        verification = ", ".join(f"{n}: {s}" for n, s in zip(shapes.input_names, shapes.input_specs))
    return {"name": task.name, "category": category,
            "source": task.source, "inputs": [(n, str(s)) for n, s in zip(real.input_names, real.input_specs)],
            "parameters": [(n, str(s)) for n, s in real.parameters.items()], "outputs": _real_outputs(task),
            "init_args": init, "attributes": attrs, "constants": consts, "verification": verification,
            "groups": group_lines(task) if task.groups else None, "description": task.description}


@dataclass
class Prompt:
    messages: list[dict]
    examples: list[str]          # ids of the examples shown
    category: str | None         # the category they were chosen for
    warnings: list[str]


def build_prompt(task, shapes, chip, *, examples_dir: Path | None = None, n_examples: int = 2,
                 lowering: bool = False) -> Prompt:
    """The first two messages of every sample: system (language and rules) and user (examples and op)."""
    notes = []
    root = examples_dir if examples_dir is not None else examples_root()
    pool = load_examples(Path(root)) if root is not None else ()
    if n_examples > 0 and not pool:
        notes.append("no expert examples found (examples/ is not in this installation): the prompt has none")
    chosen, category = choose_examples(task, pool, n_examples)
    system = render("system.j2", reference=reference_text().strip(), chip=chip.name, ub_kib=chip.ub_bytes // 1024,
                    vector_cores=chip.aiv_cores, cube_cores=chip.aic_cores, lowering=lowering)
    user = render("task.j2", examples=chosen, op=op_facts(task, shapes, category), chip=chip.name)
    return Prompt([{"role": "system", "content": system}, {"role": "user", "content": user}],
                  [e.id for e in chosen], category, notes)


#: Where a kernel that verified in the interpreter failed, in words (the stages after ``verify``:
#: gen's ``lower``/``backend``, and bench's ``compile``/``correct`` for the backend's two steps).
STAGE_WORDS = {"lower": "while it was lowered to AscendC", "backend": "when the AscendC kernel was built and run",
               "compile": "when the AscendC kernel was compiled",
               "correct": "when the compiled AscendC kernel was run and compared with PyTorch"}


def repair_prompt(stage: str, error: str, *, mismatch: bool = False, shapes: str = "", truncated: bool = False,
                  ours: bool = False) -> str:
    """The one message sent back after a failed turn."""
    return render("repair.j2", stage=stage, error=error.strip(), mismatch=mismatch, shapes=shapes,
                  truncated=truncated, ours=ours, where=STAGE_WORDS.get(stage, f"at the {stage} step"))


def optimize_prompt(facts: str, *, faster: bool, first: bool, best_turn: int, best_us: float,
                    previous_us: float | None, history: list[tuple[int, float, bool]]) -> str:
    """The message after a verified kernel when more speed is asked for (``--optimize``): its
    modeled speed as facts, how it compares with the kernels before it, and the request."""
    return render("optimize.j2", facts=facts.strip(), faster=faster, first=first, best_turn=best_turn,
                  best_us=best_us, previous_us=previous_us, history=history)
