"""Finding the kernel in a reply: fenced ```dsl, any fence, bare text, or nothing."""
from ascendcraft.llm.extract import extract_dsl

K = "kernel k(x: gm f32[N]) -> (y: gm f32[N]):\n    store(y, load(x))\n"


def test_dsl_fence_with_prose_around():
    assert extract_dsl(f"Sure.\n\n```dsl\n{K}```\nThis copies x.") == K


def test_untagged_or_other_language_fence():
    assert extract_dsl(f"```\n{K}```") == K
    assert extract_dsl(f"```python\n{K}```") == K


def test_dsl_tagged_block_wins_and_the_last_one_among_equals():
    draft = K.replace("load(x)", "load(x) * 2")
    assert extract_dsl(f"```python\n{draft}```\n```dsl\n{K}```") == K
    assert extract_dsl(f"```dsl\n{draft}```\nbetter:\n```dsl\n{K}```") == K
    assert extract_dsl(f"```dsl\n{K}```\nnow python:\n```python\n{draft}```") == K


def test_blocks_without_a_kernel_are_ignored():
    assert extract_dsl(f"```bash\nascendcraft check k.dsl\n```\n```dsl\n{K}```") == K
    assert extract_dsl("```python\nprint('hello')\n```") is None


def test_bare_kernel_without_fences():
    assert extract_dsl("Here it is:\n" + K) == K


def test_no_code_at_all():
    assert extract_dsl("I cannot help with that.") is None
    assert extract_dsl("") is None


def test_cut_off_reply_keeps_the_unclosed_block():
    assert extract_dsl(f"```dsl\n{K}") == K


def test_indented_block_is_dedented_and_tildes_work():
    indented = "".join("    " + line + "\n" for line in K.splitlines())
    assert extract_dsl(f"1. the kernel:\n    ```dsl\n{indented}    ```\n") == K
    assert extract_dsl(f"~~~dsl\n{K}~~~\n") == K
