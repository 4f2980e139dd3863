"""Running the machine's git for the job: the repository, its history, tree listings and blobs.

Git is the machine's own ``git``, run as a subprocess with the referee's identity in the
environment (a runner needs no ``git config``). Files are read with ``git cat-file`` as data,
never checked out or run: one ``git cat-file --batch`` process a job serves every read
(:meth:`Git.blob`), and one ``git ls-tree -r`` lists what a commit holds (:meth:`Git.listing`),
so that the job starts a bounded number of git processes, not a few for every game.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple

from rebis_pbm.errors import Failed, UsageError, one_line
from rebis_pbm.files.names import SECRET_SUFFIX

ZERO = "0" * 40   # what CI gives as the "before" of a branch's first push
SYMLINK = "120000"  # git's mode of a symbolic link
REGULAR = ("100644", "100755")  # the modes of a file committed as a file (not a link)


@dataclass(frozen=True)
class Identity:
    """Who commits the record: ``name`` and ``email`` (the referee's)."""

    name: str = "Rebis referee"
    email: str = "referee@localhost"


REFEREE = Identity()  # the default committer


class Entry(NamedTuple):
    """One file of a commit's tree, as ``git ls-tree`` gives it: its ``mode`` (``100644``,
    ``120000`` for a symbolic link...) and its object id ``oid``."""

    mode: str
    oid: str


BATCH = 500  # names asked of cat-file --batch at once (500 ids: 20 KiB, under a pipe's buffer)
Listing = dict[str, Entry]  # a commit's files by path (relative to the top): Git.listing


# One entry of `git ls-tree -z`: MODE TYPE OID<TAB>PATH<NUL>.
_ENTRY = re.compile(r"([0-7]+) [a-z]+ ([0-9a-f]+)\t([^\0]+)\0")


class Git:
    """The machine's ``git`` in the repository ``top``, committing as ``identity``. Close it
    (:meth:`close`) to end its ``cat-file --batch`` process."""

    def __init__(self, top: Path, identity: Identity = REFEREE):
        self.top = top
        self.env = {**os.environ, "GIT_AUTHOR_NAME": identity.name,
                    "GIT_AUTHOR_EMAIL": identity.email, "GIT_COMMITTER_NAME": identity.name,
                    "GIT_COMMITTER_EMAIL": identity.email, "GIT_TERMINAL_PROMPT": "0"}
        self._batch: subprocess.Popen[bytes] | None = None

    @staticmethod
    def argv(*args: str) -> list[str]:
        """The command line of ``git ARGS``, as every git process of the job is started: with
        ``core.quotePath`` off, so that a path of accented letters (``commands/José-1.txt``)
        is listed as itself, never quoted with octal escapes (``"commands/Jos\\303\\251..."``)
        whatever the repository's configuration."""
        return ["git", "-c", "core.quotePath=false", *args]

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``git ARGS`` in the repository, its output as text.

        Raises:
            Failed: git exited non-zero and ``check`` (exit 2), with git's last line.
        """
        done = subprocess.run(self.argv(*args), cwd=self.top, env=self.env,
                              capture_output=True, text=True)
        if check and done.returncode != 0:
            self._failed(args[0], done.stderr)
        return done

    def run_binary(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """``git ARGS`` in the repository, its output as bytes (raises as :meth:`run`)."""
        done = subprocess.run(self.argv(*args), cwd=self.top, env=self.env,
                              capture_output=True)
        if check and done.returncode != 0:
            self._failed(args[0], done.stderr.decode("utf-8", "replace"))
        return done

    def _failed(self, command: str, err: str) -> None:
        raise Failed(f"git {command} failed in {self.top}: "
                     f"{err.strip().splitlines()[-1] if err.strip() else 'no reason given'}")

    def out(self, *args: str) -> str:
        return self.run(*args).stdout.strip()

    def commit(self, *message: str) -> str:
        """Commit what the job staged on HEAD, with ``message``'s paragraphs; returns the new
        commit. ``git write-tree``, ``commit-tree``, ``update-ref``: no hook runs, and the
        working tree is not scanned again (``git commit`` stats every tracked file first, which
        in a shard of many games costs more than the rest of the commit).

        Raises:
            Failed: git failed (exit 2).
        """
        tree = self.out("write-tree")
        new = self.out("commit-tree", tree, "-p", "HEAD",
                       *(arg for part in message for arg in ("-m", part)))
        self.run("update-ref", "-m", f"commit: {message[0]}", "HEAD", new)
        return new

    def commit_of(self, revision: str) -> str | None:
        done = self.run("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}", check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    def names(self, *args: str) -> list[str]:
        """Paths from a git command run with ``-z`` (NUL-separated: no name split or quoted)."""
        out = self.run_binary(*args).stdout
        return [n.decode("utf-8", "surrogateescape") for n in out.split(b"\0") if n]

    def listing(self, commit: str, *paths: str) -> Listing:
        """Every file ``commit`` holds under ``paths`` (folders ending in ``/``, or files), by
        its path: one ``git ls-tree -r``."""
        out = self.run_binary("--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree",
                              commit, "--", *paths).stdout.decode("utf-8", "surrogateescape")
        return {path: Entry(mode, oid) for mode, oid, path in _ENTRY.findall(out)}

    def blob(self, name: str) -> bytes | None:
        """The content of the blob ``name`` (an object id, or ``COMMIT:PATH``), None when there
        is no such blob: read by the job's one ``git cat-file --batch`` process."""
        return self.blobs([name])[0]

    def blobs(self, names: list[str]) -> list[bytes | None]:
        """:meth:`blob` of each of ``names``, asked in batches (fewer round trips)."""
        if self._batch is None:
            self._batch = subprocess.Popen(self.argv("cat-file", "--batch"), cwd=self.top,
                                           env=self.env, stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        stdin, stdout = self._pipes()
        found: list[bytes | None] = []
        for at in range(0, len(names), BATCH):  # (requests under a pipe's buffer: no deadlock)
            asked = [n for n in names[at:at + BATCH]]
            stdin.write(b"".join(n.encode("utf-8", "surrogateescape") + b"\n"
                                 for n in asked if "\n" not in n))
            stdin.flush()
            for name in asked:
                found.append(None if "\n" in name else self._answer(stdout))
        return found

    def _answer(self, stdout: IO[bytes]) -> bytes | None:
        header = stdout.readline().split()
        if len(header) != 3 or header[2] in (b"missing", b"ambiguous"):
            if not header:
                raise Failed(f"git cat-file failed in {self.top}: it stopped answering")
            return None
        data = stdout.read(int(header[2]))
        stdout.read(1)  # the newline after each object
        return data if header[1] == b"blob" else None

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        assert self._batch is not None and self._batch.stdin and self._batch.stdout
        return self._batch.stdin, self._batch.stdout

    def close(self) -> None:
        """End the ``cat-file --batch`` process (a new one starts at the next read: after a
        fetch, it sees the new objects)."""
        if self._batch is not None:
            batch, self._batch = self._batch, None
            if batch.stdin:
                batch.stdin.close()
            batch.wait()
            if batch.stdout:
                batch.stdout.close()


def repository(start: str | os.PathLike[str] = ".") -> Path:
    """The top folder of the git repository holding ``start``.

    Raises:
        Failed: ``start`` is not inside a git repository, or git is not installed (exit 2).
    """
    try:
        done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start,
                              capture_output=True, text=True)
    except FileNotFoundError:
        raise Failed("git is not installed on this machine; the git job needs it") from None
    if done.returncode != 0:
        raise Failed(f"{os.path.abspath(start)} is not inside a git repository; run the job in "
                     f"the game's clone")
    return Path(done.stdout.strip())


def deepen(git: Git, remote: str | None) -> None:
    """A shallow clone (GitLab's default, ``fetch-depth: 1``) lacks the commits that tell who
    wrote each move file: fetch the whole history first.

    Raises:
        Failed: a shallow clone without a remote (exit 2).
    """
    if git.out("rev-parse", "--is-shallow-repository") != "true":
        return
    remotes = git.out("remote").split()
    name = remote or (remotes[0] if remotes else None)
    if name is None:
        raise Failed(f"{git.top} is a shallow clone with no remote to fetch its history from; "
                     f"clone it whole")
    git.run("fetch", "--quiet", "--unshallow", name)


def secret_of(record: str) -> str:
    """``game.yaml`` -> ``game.secret.yaml``: where a record's seed would be beside it."""
    return (record[:-5] if record.endswith(".yaml") else record) + SECRET_SUFFIX


def refuse_secret(tree: Listing, record: str) -> None:
    """Refuses a game whose secret file (:func:`secret_of`) the listed commit holds.

    Raises:
        Failed: the seed is committed (exit 2).
    """
    secret = secret_of(record)
    if secret in tree:
        raise Failed(f"{secret} is committed: every player can read the seed and so every hand; "
                     f"start a new game and keep the seed in a CI secret only")


def keep_secrets(git: Git, target: str) -> None:
    """Refuses to check out ``target`` when it, or the commit checked out now, tracks a secret
    file that this checkout holds (a shard's seeds are files beside their records, written by
    the workflow and never committed): ``checkout --force`` would overwrite the seed with the
    committed file, or delete it when the next commit removes that file.

    Raises:
        Failed: such a file; nothing was checked out (exit 2).
    """
    here = git.run("rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()
    committed = {path for commit in filter(None, (target, here))
                 for path in git.names("ls-tree", "-r", "-z", "--name-only", commit)
                 if path.endswith(SECRET_SUFFIX) and os.path.lexists(git.top / path)}
    for path in sorted(committed):
        # the checkout's own file: untracked (ignored), or a tracked one written over
        if git.run("status", "--porcelain", "--ignored", "--", path).stdout.strip():
            shown = one_line(path)
            raise Failed(f"{shown} is committed where this checkout keeps a game's seed; "
                         f"nothing was checked out, so the seed is kept: remove {shown} from "
                         f"the branch in a new commit (if it holds the real seed, every "
                         f"player can read it: start a new game)")


def span(git: Git, revisions: str) -> tuple[str | None, str]:
    """``OLD..NEW`` or ``NEW`` -> (base, new): the commit the new files are compared with (None:
    everything ``new`` holds is new) and the new commit.

    Raises:
        UsageError: not a commit or a range of this repository (argument ``REVISIONS``).
    """
    def bad() -> UsageError:  # (a shallow clone was deepened before: deepen)
        return UsageError(f"{revisions}: give a commit, or a range OLD..NEW of this repository "
                          f"(OLD may be {ZERO}: every commit of NEW)", "REVISIONS")

    if ".." in revisions:
        old, _, new_rev = revisions.partition("..")
        new = git.commit_of(new_rev)
        if new is None:
            raise bad()
        if old == ZERO:
            return None, new
        old_commit = git.commit_of(old)
        if old_commit is None:
            raise bad()
        base = git.run("merge-base", old_commit, new, check=False).stdout.strip()
        if not base:
            raise bad()
        return base, new
    new = git.commit_of(revisions)
    if new is None:
        raise bad()
    return git.commit_of(f"{new}^"), new


def changed_files(git: Git, base: str | None, new: str, folder: str) -> list[str]:
    """Every file ``new`` adds or changes since ``base`` (None: every file ``new`` holds) in
    ``folder``: one ``git diff-tree``."""
    empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree (SHA-1)
    if base is None and len(new) != len(empty):  # another object format: ask git
        empty = git.out("hash-object", "-t", "tree", "/dev/null")
    return git.names("diff-tree", "-r", "-z", "--name-only", "--diff-filter=AMT",
                     base or empty, new, "--", folder)
