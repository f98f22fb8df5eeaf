"""The core packs' learnings, written as readable pieces of regex (issue 24): the data files in
cortex_hooks/guard/packs/ are what this writes (`python tests/pack_sources.py` rewrites them;
tests/test_judgment.py holds the files to it). The policy is dcg's; each pack's corpus is
tests/corpora/pack_NAME.toml."""

from __future__ import annotations

import sys
from pathlib import Path

T = r"""(?:"[^"]*"|'[^']*'|[^\s"'])+"""  # one shell word as written
Q = r"""["']?"""  # an optional quote around a word
GLOBAL = (
    r"(?:\s+(?:-[Cc]\s+"
    + T
    + r"|--(?:git-dir|work-tree|namespace|exec-path|config-env)(?:=|\s+)"
    + T
    + r"|--no-pager|--paginate|-[Pp]|--bare|--no-replace-objects|--(?:literal|glob|noglob|icase)-pathspecs"
    + r"|--no-optional-locks))*"
)


def git(sub: str) -> str:
    return r"^git" + GLOBAL + r"\s+" + Q + sub + Q + r"(?=\s|$)"


ARGS = r"(?:\s+" + T + r")*?"  # any words before
END = r"""["']?(?=\s|$)"""


def has(opt: str) -> str:  # somewhere among the arguments, an option
    return r"(?=" + ARGS + r"\s+" + Q + opt + END + r")"


def hasnt(opt: str) -> str:
    return r"(?!" + ARGS + r"\s+" + Q + opt + END + r")"


HELP = hasnt(r"(?:--help|-h)")


def short(letters: str) -> str:
    """A cluster of short options holding one of these letters (`-fd`, `-xdf`)."""
    return r"-[a-zA-Z]*[" + letters + r"][a-zA-Z]*"


git_pack = [
    dict(
        id="core.git:reset-hard",
        regex=git("reset") + HELP + has(r"--(?:hard|merge)"),
        anti_pattern="git reset --hard (or --merge): throws away uncommitted changes in the working tree, with no way back",
        correct_pattern="Keep the work: git stash (or commit it), then git reset --soft/--mixed; look first with git status and git diff",
        severity="critical",
    ),
    dict(
        id="core.git:clean-force",
        regex=git("clean")
        + HELP
        + has(r"(?:" + short("f") + r"|--force)")
        + hasnt(r"(?:" + short("n") + r"|--dry-run)"),
        anti_pattern="git clean -f: deletes untracked files for good (they were never committed, so git cannot bring them back)",
        correct_pattern="Preview with git clean -n (dry run), then remove the exact files by name; or git stash --include-untracked",
        severity="high",
    ),
    dict(
        id="core.git:push-force",
        regex=git("push") + HELP + has(r"(?:" + short("f") + r"|--force(?:=\S*)?|\+[^\s+:]\S*)"),
        anti_pattern="git push --force (or -f, or a +refspec): overwrites the remote branch and the commits others pushed to it",
        correct_pattern="git push --force-with-lease (it refuses when the remote moved), or push a new branch",
        severity="critical",
    ),
    dict(
        id="core.git:branch-force-delete",
        regex=git("branch")
        + HELP
        + r"(?:"
        + has(r"-[a-zA-Z]*D[a-zA-Z]*")
        + r"|"
        + has(r"(?:" + short("d") + r"|--delete)")
        + has(r"(?:" + short("f") + r"|--force)")
        + r")",
        anti_pattern="git branch -D (or --delete --force): deletes a branch even when its commits are merged nowhere",
        correct_pattern="git branch -d NAME: it refuses while the branch holds unmerged commits; merge or push them first",
        severity="high",
    ),
    dict(
        id="core.git:stash-drop",
        regex=git("stash") + r"\s+" + Q + r"drop" + END,
        anti_pattern="git stash drop: deletes a stash entry (its changes are then only in git's unreachable objects)",
        correct_pattern="Apply it first (git stash apply) or save it as a branch: git stash branch NAME",
        severity="high",
    ),
    dict(
        id="core.git:stash-clear",
        regex=git("stash") + r"\s+" + Q + r"clear" + END,
        anti_pattern="git stash clear: deletes every stash entry at once",
        correct_pattern="git stash list, then apply or branch what you need (git stash branch NAME); drop nothing blindly",
        severity="critical",
    ),
    dict(
        id="core.git:checkout-discard",
        regex=git("checkout") + HELP + has(r"(?:--(?=\s+\S)|\.|" + short("f") + r"|--force)"),
        anti_pattern="git checkout -- PATH (or checkout ., checkout -f): overwrites uncommitted changes in those files",
        correct_pattern="git stash (keeps the changes), or git diff PATH first; switch branches with git switch",
        severity="high",
    ),
    dict(
        id="core.git:switch-discard",
        regex=git("switch") + HELP + has(r"(?:" + short("f") + r"|--force|--discard-changes)"),
        anti_pattern="git switch --discard-changes (or -f): throws away uncommitted changes to switch branches",
        correct_pattern="git stash, then git switch; git stash pop on the other side",
        severity="high",
    ),
    dict(
        id="core.git:restore-worktree",
        regex=git("restore")
        + HELP
        + r"(?=\s+\S)(?:"
        + has(r"(?:--worktree|-[a-zA-Z]*W[a-zA-Z]*)")
        + r"|"
        + hasnt(r"(?:--staged|-[a-zA-Z]*S[a-zA-Z]*)")
        + r")",
        anti_pattern="git restore PATH (without --staged): overwrites uncommitted changes in the working tree",
        correct_pattern="git restore --staged PATH only unstages; keep the changes with git stash before restoring files",
        severity="high",
    ),
    dict(
        id="core.git:reflog-expire",
        regex=git("reflog") + r"\s+" + Q + r"(?:expire|delete)" + END,
        anti_pattern="git reflog expire/delete: removes the history that lets lost commits be found again",
        correct_pattern="Leave the reflog alone; git gc expires it on its own schedule",
        severity="high",
    ),
    dict(
        id="core.git:gc-prune-now",
        regex=git("gc") + has(r"--prune=(?:now|all)"),
        anti_pattern="git gc --prune=now: deletes unreachable commits at once, with the safety window of the reflog",
        correct_pattern="git gc (its default prune keeps two weeks of unreachable objects)",
        severity="high",
    ),
    dict(
        id="core.git:filter-branch",
        regex=git("filter-branch"),
        anti_pattern="git filter-branch: rewrites every commit of the branches it is given",
        correct_pattern="Ask the person first; work on a fresh clone and a new branch if history must be rewritten",
        severity="high",
    ),
]
# A brace, even `[{]`, is a literal the prefilter refuses (regex may read it as fuzzy matching):
# `[{\x00]` is a class it reads, and a NUL never reaches a simple command's text.
TP = r"(?:/tmp/|/var/tmp/|\$TMPDIR/|\$[{\x00]TMPDIR(?::?[-=+?][^}]*)?[}\x00]/)"
TEMP = r"(?![^\s]*\.\.)(?:\"" + TP + r"[^\"]*\"|'" + TP + r"[^']*'|" + TP + r"[^\s\"']*)"
OPT = r"""["']?-\S*"""
REDIR = r"(?:\d*(?:>>?|<|&>>?|>&|<&|>\|)\s+" + T + r")"
OK_WORD = r"(?:" + OPT + r"|" + REDIR + r"|" + TEMP + r")"
fs_pack = [
    dict(
        id="core.filesystem:rm-recursive-force",
        regex=r"^rm"
        + has(r"(?:" + short("rR") + r"|--recursive)")
        + has(r"(?:" + short("f") + r"|--force)")
        + r"(?!(?:\s+"
        + OK_WORD
        + r")*?\s+"
        + TEMP
        + r"(?:\s+"
        + OK_WORD
        + r")*\s*$)",
        anti_pattern="rm -rf outside /tmp, /var/tmp and $TMPDIR: deletes a tree for good, with no prompt and no trash",
        correct_pattern="Remove only what you created, in a temporary folder; elsewhere name the exact files, or move them aside (mv DIR DIR.old) and ask the person",
        severity="critical",
    ),
    dict(
        id="core.filesystem:inline-code-delete",
        regex=r"^(?:python[0-9.]*|pypy[0-9.]*|node(?:js)?|ruby|perl|php|deno|bun)(?=(?:\s+"
        + T
        + r")*?\s+(?:-c|-e|-E|-r|--eval|-p|--print)\s)"
        + r".*?(?:\brmtree\b|\bos\.(?:remove|unlink|rmdir|removedirs)\b|\.unlink\s*\(|\.rmdir\s*\(|FileUtils\.(?:rm_rf|rm_r|rm|remove_dir|remove_entry(?:_secure)?)\b|\.(?:rmSync|rmdirSync|unlinkSync)\b|\bfs(?:\.promises)?\.(?:rm|rmdir|unlink)\s*\(|\bremove_tree\b|\bunlink\b|File\.delete\b)",
        anti_pattern='Deleting files from inline interpreter code (python -c "shutil.rmtree(...)", node -e "fs.rmSync(...)"): the guard cannot see which paths the code reaches',
        correct_pattern="Delete with rm, naming the exact paths (inside /tmp for scratch files), so what is removed can be read and checked",
        severity="high",
    ),
]


def records(items: list[dict[str, str]]) -> str:
    from cortex_hooks.guard import shared

    defaults = {"tool": "Bash", "target": "content", "action": "block", "context": None, "rewrite": None}
    return shared.dump([shared.SharedLearning.model_validate({**defaults, **item}) for item in items])


def build() -> dict[str, str]:
    """Each pack's file, by name."""
    return {"core.git": records(git_pack), "core.filesystem": records(fs_pack)}


if __name__ == "__main__":
    folder = Path(__file__).resolve().parent.parent / "cortex_hooks" / "guard" / "packs"
    for name, text in build().items():
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
    sys.exit(0)
