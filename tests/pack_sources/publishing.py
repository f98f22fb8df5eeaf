"""The publishing pack: what releases a package or an image to the world (issue 37)."""

from __future__ import annotations

from pack_sources.words import ARGS, HELP, OPTION, Q, after, has, hasnt, lacks, program, then

POLICY = (
    "Denies what publishes for everyone and cannot be taken back: npm, pnpm, yarn and bun "
    "publish (and npm unpublish, lerna or changeset publish, semantic-release), twine upload, "
    "uv, poetry, hatch, flit, pdm and maturin publish, cargo publish and yank, gem push and "
    "yank, rake release, mvn deploy, gradle publish, dotnet nuget push, dart/flutter pub "
    "publish, mix hex.publish, vsce/ovsx publish, pod trunk push, anaconda upload, helm push, "
    "and an image pushed to a remote registry (docker/podman push, build --push). Passes: "
    "building and packing (npm pack, python -m build, cargo package), every --dry-run, a "
    "registry on this machine (localhost, 127.0.0.1) or a test index (TestPyPI), "
    "publishToMavenLocal, --help, and these words as data."
)

DRY = lacks(r"(?:--dry-run|--dryrun)(?:=true)?")
# A registry on this machine, and the rest of the word (`\x5b` is `[`: the prefilter reads `[:`
# as the start of a POSIX class and would give up on the whole pattern).
LOCAL = (
    r"""["']?(?:https?://|oci://)?(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\x5b::1\]|host\.docker\.internal)"""
    r"""(?=[/:"'\s]|$)[^\s|]*"""
)
NOT_LOCAL_REGISTRY = hasnt(
    r"(?:--registry|--repository-url|--publish-url|--index-url|--url)(?:=|\s+)" + LOCAL
)
TEST_INDEX = (
    r"(?:--repository|-r|--index|--repository-url|--publish-url)(?:=|\s+)"
    r"""["']?(?:testpypi|test-pypi|https?://test\.pypi\.org\S*)"""
)
# The first word after `push` that is no option: the image, pushed to a local registry or not.
LOCAL_IMAGE = r"(?=(?:\s+" + OPTION + r")*?\s+" + Q + LOCAL + r")"

rules = [
    dict(
        id="publishing:maven-gradle",
        regex=program("mvn", "mvnw", "gradle", "gradlew", "semantic-release")
        + HELP
        + r"(?:"
        + after("mvn", "mvnw")
        + has(r"(?:deploy(?::[\w-]+)?|release:perform|nexus-staging:release|central-publishing:publish)")
        + hasnt(r"-Dmaven\.deploy\.skip=true")
        + r"|"
        + after("gradle", "gradlew")
        + has(r"(?:[\w-]*:)*publish(?!ToMavenLocal\b)\w*")
        + r"|"
        + after("semantic-release")
        + DRY
        + r")",
        anti_pattern="mvn deploy, gradle publish, semantic-release: releases a version to a public registry (Maven Central, npm …)",
        correct_pattern="Build and check locally (mvn verify, gradle publishToMavenLocal, semantic-release --dry-run); the person publishes",
        severity="high",
        examples={
            "deny": ["mvn clean deploy", "./gradlew publish", "npx semantic-release"],
            "allow": ["mvn verify", "./gradlew publishToMavenLocal", "npx semantic-release --dry-run"],
        },
    ),
    dict(
        id="publishing:npm-publish",
        regex=program("npm", "pnpm", "bun", "yarn", "lerna", "changeset", "changesets")
        + r"(?:"
        + then("npm")
        + r")?"
        + then(r"publish|unpublish")
        + HELP
        + DRY
        + NOT_LOCAL_REGISTRY,
        anti_pattern="npm publish (or unpublish, pnpm/yarn/bun publish, lerna or changeset publish): releases a version to everyone; a published version can never be reused",
        correct_pattern="npm publish --dry-run (or npm pack) to see what would go; the person publishes",
        severity="high",
        examples={
            "deny": [
                "npm publish",
                "pnpm publish --access public",
                "yarn npm publish",
                "npm unpublish my-pkg@1.0.0",
            ],
            "allow": [
                "npm publish --dry-run",
                "npm pack",
                "npm publish --registry http://localhost:4873",
                "npm install",
            ],
        },
    ),
    dict(
        id="publishing:python-upload",
        regex=r"(?:^python[0-9.]*(?:\s-\S+)*\s(?:\S*/)?setup\.py(?=\s)[^|]*?(?=\supload(?:\s|$))|^python[0-9.]*(?:\s-\S+)*\s-m\stwine|"
        + program("twine", "uv", "poetry", "hatch", "flit", "pdm", "maturin")
        + r")"
        + then(r"publish|upload")
        + HELP
        + DRY
        + NOT_LOCAL_REGISTRY
        + hasnt(TEST_INDEX),
        anti_pattern="twine upload (or uv, poetry, hatch, flit publish): releases a version on PyPI for everyone; a version number can never be uploaded again",
        correct_pattern="twine check dist/*; upload to TestPyPI first (--repository testpypi); the person publishes",
        severity="high",
        examples={
            "deny": [
                "twine upload dist/*",
                "python -m twine upload dist/*",
                "uv publish",
                "poetry publish --build",
            ],
            "allow": [
                "twine check dist/*",
                "twine upload --repository testpypi dist/*",
                "uv publish --dry-run",
                "python -m build",
            ],
        },
    ),
    dict(
        id="publishing:crate-gem",
        regex=program("cargo", "gem")
        + HELP
        + hasnt(r"(?:--dry-run|-n|--undo)")
        + then(r"publish|yank|push")
        + NOT_LOCAL_REGISTRY,
        anti_pattern="cargo publish / yank, gem push / yank: releases (or withdraws) a version on crates.io or RubyGems for everyone",
        correct_pattern="cargo publish --dry-run, gem build; the person publishes",
        severity="high",
        examples={
            "deny": [
                "cargo publish",
                "cargo yank --version 1.0.1",
                "gem push pkg/mygem-1.0.gem",
            ],
            "allow": [
                "cargo publish --dry-run",
                "cargo yank --version 1.0.1 --undo",
                "gem build mygem.gemspec",
                "cargo package",
            ],
        },
    ),
    dict(
        id="publishing:jvm-dotnet-other",
        regex=program(
            "dotnet",
            "nuget",
            "dart",
            "flutter",
            "mix",
            "vsce",
            "ovsx",
            "pod",
            "anaconda",
            "rake",
            "bundle",
        )  # the programs first, outside any alternation: the prefilter then needs one of them
        + HELP
        + r"(?:"
        + after("dotnet")
        + then("nuget")
        + then("push")
        + r"|"
        + after("nuget")
        + then("push")
        + r"|"
        + after("dart", "flutter")
        + then("pub")
        + then("publish")
        + hasnt(r"(?:--dry-run|-n)")
        + r"|"
        + after("mix")
        + then(r"hex\.publish")
        + DRY
        + r"|"
        + after("vsce", "ovsx")
        + then("publish")
        + r"|"
        + after("pod")
        + then("trunk")
        + then("push")
        + r"|"
        + after("anaconda")
        + then("upload")
        + r"|"
        + after("rake")
        + then(r"release(?:\[\S*\])?")
        + r"|"
        + after("bundle")
        + r"\sexec\srake"
        + then(r"release(?:\[\S*\])?")
        + r")",
        anti_pattern="dotnet nuget push, dart pub publish, mix hex.publish, vsce publish, pod trunk push, rake release: releases a version to a public registry",
        correct_pattern="Build and check locally (dotnet pack, dart pub publish --dry-run, gem build); the person publishes",
        severity="high",
        examples={
            "deny": [
                "dotnet nuget push pkg.nupkg --source nuget.org",
                "dart pub publish --force",
            ],
            "allow": [
                "mvn verify",
                "./gradlew publishToMavenLocal",
                "dart pub publish --dry-run",
                "dotnet pack",
            ],
        },
    ),
    dict(
        id="publishing:image-push",
        regex=program("docker", "podman", "nerdctl", "buildah", "helm", "crane")
        + HELP
        + r"(?:(?:"
        + then(r"image|manifest")
        + r")?"
        + then("push")
        + r"(?!"
        + LOCAL_IMAGE
        + r")(?!"
        + ARGS
        + r"\s+oci://"
        + LOCAL
        + r")|(?:"
        + then("buildx")
        + r")?"
        + then(r"build|bake")
        + has(r"(?:--push(?:=true)?|--output(?:=|\s+)\S*type=registry\S*)")
        + hasnt(r"(?:-t|--tag)(?:=|\s+)" + LOCAL)
        + r")",
        anti_pattern="docker push (or build --push, podman push, helm push): publishes an image to a remote registry, where others pull it",
        correct_pattern="Build and run it locally (docker build -t app:dev .); push to a registry on this machine (localhost:5000) to try; the person pushes releases",
        severity="high",
        examples={
            "deny": [
                "docker push ghcr.io/acme/app:1.2",
                "docker buildx build --push -t acme/app:latest .",
                "podman push quay.io/acme/api",
                "helm push chart-1.0.tgz oci://registry.example.com/charts",
            ],
            "allow": [
                "docker push localhost:5000/app:dev",
                "docker build -t app:dev .",
                "docker buildx build --push -t localhost:5000/app .",
                "docker pull ghcr.io/acme/app:1.2",
            ],
        },
    ),
]
