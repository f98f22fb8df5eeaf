"""The core packs (SPEC §14): core.git and core.filesystem, the policy of dcg's public corpus."""

from __future__ import annotations

from pack_sources.words import ARGS, END, WORDS, Q, T, has, hasnt, short

# git's options before its subcommand: `-C DIR` and `-c NAME=VALUE` (their value attached too:
# `-Crepo`, `-cfoo=bar`), the long ones with a value, and any other long option (`--no-pager`).
GLOBAL = (
    r"(?:\s+(?:-[Cc]\s*"
    + T
    + r"|--(?:git-dir|work-tree|namespace|exec-path|config-env|super-prefix)(?:=|\s+)"
    + T
    + r"|--[a-z-]+(?:="
    + T
    + r")?|-[Pp]))*"
)


def git(sub: str) -> str:
    return r"^git" + GLOBAL + r"\s+" + Q + sub + Q + r"(?=\s|$)"


HELP = hasnt(r"(?:--help|-h)")
DELETER = (
    r"(?:\brmtree\s*\(|\bos\.(?:remove|unlink|rmdir|removedirs)\s*\(|\.unlink\s*\(|\.rmdir\s*\(|"
    r"FileUtils\.(?:rm_rf|rm_r|rm|remove_dir|remove_entry(?:_secure)?)\b|\.(?:rmSync|rmdirSync|unlinkSync)\b|"
    r"\bfs(?:\.promises)?\.(?:rm|rmdir|unlink)\s*\(|\bremove_tree\b|\bunlink\b|File\.delete\b)"
)
# The word inline code is given as (after -c, -e or <<<), holding a deleter.
CODE_WORD = (
    r"(?:\"(?:[^\"\\]|\\[\s\S])*?" + DELETER + r"|'[^']*?" + DELETER + r"|[^\s\"'|]*?" + DELETER + r")"
)

GIT_POLICY = (
    "Denies the git commands that throw away work git cannot give back: uncommitted changes "
    "(reset --hard/--merge, checkout -- PATH / . / -f, switch -f / --discard-changes, restore "
    "without --staged), untracked files (clean -f without -n), commits others pushed (push "
    "--force, -f or a +refspec; --force-with-lease passes), unmerged branches (branch -D, "
    "branch -f NAME), "
    "stashes (stash drop/clear) and the history that finds lost commits (reflog expire/delete, "
    "gc --prune=now, filter-branch). Everything else passes: reading, committing, --help, "
    "dry runs (clean -n), the safe forms (branch -d, reset --soft/--mixed, restore --staged, "
    "checkout -b NAME), and these words as data (a commit message, an echo, a grep pattern)."
)
FS_POLICY = (
    "Denies rm recursive and forced together (-rf, -fr, -r -f, --recursive --force) when one "
    "of its paths lies outside /tmp, /var/tmp and $TMPDIR, or is not known before it runs (a "
    "variable, a glob, `..`, a path xargs or parallel reads from its input, a pipe into rm); and inline "
    "interpreter code (python -c, node -e, a heredoc fed to python3) that deletes files, whose "
    "paths the guard cannot see. rm without -r or -f, rm -rf of paths in the temporary folders, "
    "rm -rf with no path at all (it deletes nothing), --help, and these words as data pass."
)

git_pack = [
    dict(
        id="core.git:reset-hard",
        regex=git("reset") + HELP + has(r"--(?:hard|merge)"),
        anti_pattern="git reset --hard (or --merge): throws away uncommitted changes in the working tree, with no way back",
        correct_pattern="Keep the work: git stash (or commit it), then git reset --soft/--mixed; look first with git status and git diff",
        severity="critical",
        examples={
            "deny": ["git reset --hard", "git -Crepo reset --hard HEAD~1", "git -cfoo=bar reset --merge"],
            "allow": ["git reset --soft HEAD~1", "git reset --hard --help", "echo 'git reset --hard'"],
        },
    ),
    dict(
        id="core.git:clean-force",
        regex=git("clean")
        + HELP
        + has(r"(?:" + short("f", "e") + r"|--force)")
        + hasnt(r"(?:" + short("n", "e") + r"|--dry-run)"),
        anti_pattern="git clean -f: deletes untracked files for good (they were never committed, so git cannot bring them back)",
        correct_pattern="Preview with git clean -n (dry run), then remove the exact files by name; or git stash --include-untracked",
        severity="high",
        examples={
            "deny": ["git clean -fdx", "git -C/srv/app clean -f", "git clean -d --force"],
            "allow": ["git clean -n", "git clean -fdn", "git clean -e frontend -n"],
        },
    ),
    dict(
        id="core.git:push-force",
        regex=git("push") + HELP + has(r"(?:" + short("f", "o") + r"|--force(?:=\S*)?|\+[^\s+:]\S*)"),
        anti_pattern="git push --force (or -f, or a +refspec): overwrites the remote branch and the commits others pushed to it",
        correct_pattern="git push --force-with-lease (it refuses when the remote moved), or push a new branch",
        severity="critical",
        examples={
            "deny": ["git push --force origin main", "git push -f", "git push origin +main"],
            "allow": [
                "git push --force-with-lease origin main",
                "git push -u origin feature",
                "git push -o ci.skip",
            ],
        },
    ),
    dict(
        id="core.git:branch-force-delete",
        regex=git("branch")
        + HELP
        + r"(?:"
        + has(r"-[a-zA-Z]*D[a-zA-Z]*")
        + r"|"
        + has(r"(?:" + short("f", "utm") + r"|--force)")
        + r")",
        anti_pattern="git branch -D (or --delete --force, or -f NAME): deletes a branch even when its commits are merged nowhere, or moves it away from them",
        correct_pattern="git branch -d NAME: it refuses while the branch holds unmerged commits; merge or push them first; make a new branch rather than resetting one",
        severity="high",
        examples={
            "deny": [
                "git branch -D old",
                "git branch --delete --force old",
                "git branch -f feature origin/main",
            ],
            "allow": ["git branch -d merged", "git branch | cut -d ' ' -f 2", "git branch -a"],
        },
    ),
    dict(
        id="core.git:stash-drop",
        regex=git("stash") + r"\s+" + Q + r"drop" + END,
        anti_pattern="git stash drop: deletes a stash entry (its changes are then only in git's unreachable objects)",
        correct_pattern="Apply it first (git stash apply) or save it as a branch: git stash branch NAME",
        severity="high",
        examples={
            "deny": ["git stash drop", "git stash drop stash@{1}"],
            "allow": ["git stash pop", "git stash list", "git stash show -p stash@{0}"],
        },
    ),
    dict(
        id="core.git:stash-clear",
        regex=git("stash") + r"\s+" + Q + r"clear" + END,
        anti_pattern="git stash clear: deletes every stash entry at once",
        correct_pattern="git stash list, then apply or branch what you need (git stash branch NAME); drop nothing blindly",
        severity="critical",
        examples={
            "deny": ["git stash clear", "cd repo && git stash clear"],
            "allow": ["git stash", "git commit -m 'git stash clear was a bad idea'"],
        },
    ),
    dict(
        id="core.git:checkout-discard",
        regex=git("checkout") + HELP + has(r"(?:--(?=\s+\S)|\.|" + short("f", "bB") + r"|--force)"),
        anti_pattern="git checkout -- PATH (or checkout ., checkout -f): overwrites uncommitted changes in those files",
        correct_pattern="git stash (keeps the changes), or git diff PATH first; switch branches with git switch",
        severity="high",
        examples={
            "deny": ["git checkout -- src/app.py", "git checkout .", "git checkout -f main"],
            "allow": ["git checkout -b feature", "git checkout -bfeature", "git checkout main"],
        },
    ),
    dict(
        id="core.git:switch-discard",
        regex=git("switch") + HELP + has(r"(?:" + short("f", "cC") + r"|--force|--discard-changes)"),
        anti_pattern="git switch --discard-changes (or -f): throws away uncommitted changes to switch branches",
        correct_pattern="git stash, then git switch; git stash pop on the other side",
        severity="high",
        examples={
            "deny": ["git switch -f main", "git switch --discard-changes main"],
            "allow": ["git switch -c feature", "git switch -cfeature", "git switch main"],
        },
    ),
    dict(
        id="core.git:restore-worktree",
        regex=git("restore")
        + HELP
        + r"(?=\s+\S)(?:"
        + has(r"(?:--worktree|" + short("W", "s") + r")")
        + r"|"
        + hasnt(r"(?:--staged|" + short("S", "s") + r")")
        + r")",
        anti_pattern="git restore PATH (without --staged): overwrites uncommitted changes in the working tree",
        correct_pattern="git restore --staged PATH only unstages; keep the changes with git stash before restoring files",
        severity="high",
        examples={
            "deny": ["git restore src/app.py", "git restore -W -S .", "git restore -sHEAD~1 ."],
            "allow": ["git restore --staged src/app.py", "git restore -S ."],
        },
    ),
    dict(
        id="core.git:reflog-expire",
        regex=git("reflog") + r"\s+" + Q + r"(?:expire|delete)" + END,
        anti_pattern="git reflog expire/delete: removes the history that lets lost commits be found again",
        correct_pattern="Leave the reflog alone; git gc expires it on its own schedule",
        severity="high",
        examples={
            "deny": ["git reflog expire --expire=now --all", "git reflog delete HEAD@{2}"],
            "allow": ["git reflog", "git reflog show main"],
        },
    ),
    dict(
        id="core.git:gc-prune-now",
        regex=git("gc") + has(r"--prune=(?:now|all)"),
        anti_pattern="git gc --prune=now: deletes unreachable commits at once, with the safety window of the reflog",
        correct_pattern="git gc (its default prune keeps two weeks of unreachable objects)",
        severity="high",
        examples={
            "deny": ["git gc --prune=now", "git gc --aggressive --prune=all"],
            "allow": ["git gc", "git gc --auto"],
        },
    ),
    dict(
        id="core.git:filter-branch",
        regex=git("filter-branch"),
        anti_pattern="git filter-branch: rewrites every commit of the branches it is given",
        correct_pattern="Ask the person first; work on a fresh clone and a new branch if history must be rewritten",
        severity="high",
        examples={
            "deny": ["git filter-branch --tree-filter 'rm -f secrets.txt' HEAD"],
            "allow": ["git log --all -- secrets.txt", "git help filter-branch"],
        },
    ),
]

# A path in a temporary folder: /tmp/, /var/tmp/, $TMPDIR/ (and ${TMPDIR}, ${TMPDIR:-/tmp}), with no
# `..` among its parts; in single quotes `$TMPDIR` is a folder of that name here, not the temp dir.
TP = r"(?:/tmp/|/var/tmp/|\$TMPDIR/|\$[{\x00]TMPDIR(?::?[-=+?][^}]*)?[}\x00]/)"
TP_LITERAL = r"(?:/tmp/|/var/tmp/)"
NO_UP = r"""(?![^\s]*/\.\.(?:/|["'\s]|$))"""
TEMP = NO_UP + r"(?:\"" + TP + r"[^\"]*\"|'" + TP_LITERAL + r"[^']*'|" + TP + r"[^\s\"'|]*)(?=\s|$)"
# A redirection: its operator and target as the reader shows them (`2> /dev/null`), or as written
# in a pipeline's text (`2>&1`, `123>/dev/null`).
REDIR_OP = r"""\d*(?:>>?|<|&>>?|>&|<&|>\||<>|<<<|<<-?)"""
REDIRECTION = REDIR_OP + r"(?:\s+" + T + r"|[^\s|]+)"
OPTION_WORD = r"""["']?-[^\s|]*"""
SEPARATOR = r""":::(?=\s|$)"""  # GNU parallel's: its arguments follow
# Words that are no path rm is told to delete, or a path in a temporary folder.
BEFORE = (
    r"(?:\s+(?:"
    + REDIR_OP
    + r"\s+"
    + T
    + r"|(?!--(?:\s|$))"
    + OPTION_WORD
    + r"|"
    + TEMP
    + r"|"
    + SEPARATOR
    + r"))"
)
AFTER = r"(?:\s+(?:" + REDIR_OP + r"\s+" + T + r"|" + TEMP + r"|" + SEPARATOR + r"))"
# A path outside the temporary folders, or one not known before it runs: past the words that are
# none (before `--`, options too), an operand that is no redirection, no option and no `--`; or,
# after `--`, any operand that is no redirection.
OUTSIDE = (
    BEFORE
    + r"*+\s+(?:(?!"
    + REDIR_OP
    + r"|"
    + OPTION_WORD
    + r"|--(?:\s|$))"
    + T
    + r"|--"
    + AFTER
    + r"*+\s+(?!"
    + REDIR_OP
    + r")"
    + T
    + r")"
)
RM_FLAGS = has(r"(?:" + short("rR") + r"|--recursive)") + has(r"(?:" + short("f") + r"|--force)")
# xargs or parallel give rm paths read from their input, none of them known: unless xargs puts
# them in place (-I, -i, --replace) or parallel is given its arguments (:::). Read in the command
# as written from its first wrapper (`sudo xargs rm -rf`), which the reader also shows.
RUNNERS = r"(?:sudo|doas|env|command|builtin|exec|nohup|nice|time|timeout|stdbuf|ionice|busybox|toybox|setsid|flock)"
FED = (
    r"^(?:"
    + RUNNERS
    + WORDS
    + r"\s)?(?:xargs|parallel)(?!"
    + ARGS
    + r"\s+(?:-I\S*|-i|--replace(?:=\S*)?|:::)(?=\s|$))"
    + WORDS
    + r"\s"
)
# `find . | rm -rf`, `echo yes | rm -rf`: rm has no path, and is piped what it is meant to delete
# (it reads none: the command is still meant to delete). Read in the pipeline as written.
PIPED = r"\|&?\s*(?:" + RUNNERS + r"(?:\s+-[^\s|]*)*\s+)*"
NO_OPERAND = r"(?:\s+(?:" + REDIRECTION + r"|" + OPTION_WORD + r"))*\s*(?:$|\|)"
# One `rm` and its flags for the three ways in (what follows depends on which: a conditional group)
RM = (
    r"(?:^(?P<own>)|"
    + FED
    + r"|(?P<piped>"
    + PIPED
    + r"))rm(?=\s|$)"
    + RM_FLAGS
    + r"(?(own)(?="
    + OUTSIDE
    + r"))(?(piped)(?="
    + NO_OPERAND
    + r"))"
)
fs_pack = [
    dict(
        id="core.filesystem:rm-recursive-force",
        regex=RM,
        anti_pattern="rm -rf outside /tmp, /var/tmp and $TMPDIR: deletes a tree for good, with no prompt and no trash",
        correct_pattern="Remove only what you created, in a temporary folder; elsewhere name the exact files, or move them aside (mv DIR DIR.old) and ask the person",
        severity="critical",
        examples={
            "deny": [
                "rm -rf build",
                "rm -rf /tmp/../home/user",
                "find . -name cache | xargs rm -rf",
                "parallel rm -rf {} ::: /",
                "rm -rf -- -x /tmp/y",
                "rm -rf '$TMPDIR/foo'",
            ],
            "allow": [
                "rm -rf /tmp/build",
                "rm -rf /tmp/foo..bar",
                "rm -rf 123>/dev/null",
                "xargs rm -- -rf",
                'rm -rf "$TMPDIR/x" 2>&1 | tee log',
                "rm -r build",
            ],
        },
    ),
    dict(
        id="core.filesystem:inline-code-delete",
        regex=r"^(?:python[0-9.]*|pypy[0-9.]*|node(?:js)?|ruby|perl|php|deno|bun)(?=\s|$)(?:"
        + WORDS
        + r"\s(?:-c|-e|-E|-r|--eval|-p|--print|<<<)\s"
        + CODE_WORD
        + r"|[^\n]*\n[\s\S]*?"
        + DELETER
        + r")",
        anti_pattern='Deleting files from inline interpreter code (python -c "shutil.rmtree(...)", node -e "fs.rmSync(...)", a heredoc fed to python3): the guard cannot see which paths the code reaches',
        correct_pattern="Delete with rm, naming the exact paths (inside /tmp for scratch files), so what is removed can be read and checked",
        severity="high",
        examples={
            "deny": [
                "python3 -c \"import shutil; shutil.rmtree('build')\"",
                "python3 <<EOF\nimport shutil\nshutil.rmtree('/home/user')\nEOF",
                "node -e \"require('fs').rmSync('dist', {recursive: true})\"",
            ],
            "allow": [
                "python3 -c 'print(1)' | grep unlink",
                "python3 script.py <<EOF\nunlink\nEOF",
                "python3 -c \"print('done')\"",
            ],
        },
    ),
]
