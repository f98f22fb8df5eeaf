"""The containers pack: docker, podman, nerdctl and compose (issue 37)."""

from __future__ import annotations

from pack_sources.words import HELP, WORDS, has, no_flag, program, short, then

POLICY = (
    "Denies what deletes a container's data for good or wipes many objects at once: prune "
    "(system, volume, container, image, network, pod), podman system reset, volume rm, rm or "
    "rmi with --force, rm with its volumes (-v), compose down with its volumes (-v) or all its "
    "images (--rmi all), compose rm -f / -v, stack rm, swarm leave --force, and stopping, "
    "killing or removing every container or image at once ($(docker ps -q), $(docker images "
    "-q), docker ps -q | xargs docker stop). Passes: building, running, "
    "reading (ps, logs, inspect, system df), removing one stopped container or an image without "
    "--force, compose down without -v, compose --dry-run, --help, and these words as data. A "
    "compose file's contents are not read: `compose down` is judged on its options alone."
)

ENGINE = program("docker", "podman", "nerdctl")
# compose: `docker compose`, `podman compose`, `docker-compose`, `podman-compose`
DRY = no_flag("--dry-run")  # compose's own: anywhere after the program
COMPOSE = (
    r"(?:" + ENGINE + DRY + then("compose") + r"|" + program("docker-compose", "podman-compose") + DRY + r")"
)


def engine(*words: str) -> str:
    """docker (podman, nerdctl) and its subcommand words, options allowed between them."""
    return ENGINE + "".join(then(word) for word in words)


# `docker ps -q`, `podman ps -aq`: every container (no --filter, no name), as the shell lists them
LIST_ALL = r"(?:docker|podman|nerdctl)\s+(?:container\s+)?(?:ps|ls)(?:\s+(?:-[a-eg-zA-Z]+|--quiet|--all))*"
# `$(docker images -q)`: every image
IMAGES_ALL = r"(?:docker|podman|nerdctl)\s+(?:images|image\s+ls)(?:\s+(?:-[a-eg-zA-Z]+|--quiet|--all))*"
EVERY_IMAGE = r"(?=" + WORDS + r"\s[^\s|]*(?:\$\(|`)\s*" + IMAGES_ALL + r"\s*[)`])"
EVERY_CONTAINER = r"(?=" + WORDS + r"\s[^\s|]*(?:\$\(|`)\s*" + LIST_ALL + r"\s*[)`])"
# `docker ps -q | xargs docker stop`: the pipeline, as written
XARGS_ALL = (
    r"^"
    + LIST_ALL
    + r"\s*\|\s*(?:sudo\s+)?xargs(?:\s+-[^\s|]+)*\s+(?:docker|podman|nerdctl)\s+(?:container\s+)?"
    r"(?:stop|kill|rm|restart)(?=\s|$)"
)

rules = [
    dict(
        id="containers:system-prune",
        regex=engine("system", "prune") + HELP,
        anti_pattern="docker system prune: removes every stopped container, unused network, dangling image and build cache (with -a every unused image, with --volumes their data)",
        correct_pattern="Look first with docker system df -v; remove what you built by name (docker rm NAME, docker image rm NAME), and ask the person before pruning",
        severity="high",
        examples={
            "deny": ["docker system prune -af", "podman system prune --volumes", "sudo docker system prune"],
            "allow": ["docker system df -v", "docker system prune --help", "echo 'docker system prune'"],
        },
    ),
    dict(
        id="containers:system-reset",
        regex=program("podman") + then("system") + then("reset") + HELP,
        anti_pattern="podman system reset: deletes every container, image, volume and pod, and podman's storage with them",
        correct_pattern="Remove what you created by name (podman rm NAME, podman volume rm NAME after the person agrees)",
        severity="critical",
        examples={
            "deny": ["podman system reset", "podman system reset --force"],
            "allow": ["podman system info", "podman system reset --help"],
        },
    ),
    dict(
        id="containers:prune",
        regex=ENGINE + then(r"volume|container|image|network|pod|builder") + then("prune") + HELP,
        anti_pattern="docker volume/container/image/network prune: deletes every unused one at once (a volume prune deletes their data)",
        correct_pattern="List them first (docker volume ls -f dangling=true, docker ps -a -f status=exited) and remove the ones you created by name",
        severity="high",
        examples={
            "deny": ["docker volume prune -f", "docker image prune -a", "podman pod prune"],
            "allow": ["docker volume ls -f dangling=true", "docker image ls", "docker volume prune --help"],
        },
    ),
    dict(
        id="containers:volume-rm",
        regex=engine("volume", r"rm|remove") + HELP,
        anti_pattern="docker volume rm: deletes a volume and the data in it (a database's files, uploads), with no way back",
        correct_pattern="Inspect it (docker volume inspect NAME), back it up (docker run --rm -v NAME:/data -v $PWD:/backup alpine tar czf /backup/NAME.tgz /data) and ask the person",
        severity="critical",
        examples={
            "deny": [
                "docker volume rm pgdata",
                "podman volume rm -f cache",
                "docker volume rm $(docker volume ls -q)",
            ],
            "allow": ["docker volume inspect pgdata", "docker volume create pgdata", "docker volume ls"],
        },
    ),
    dict(
        id="containers:rm-force",
        regex=ENGINE
        + r"(?:"
        + then(r"container|pod")
        + r")?"
        + then(r"rm|remove")
        + HELP
        + has(r"(?:" + short("fv") + r"|--force|--volumes)"),
        anti_pattern="docker rm -f (or -v): kills a running container and deletes it, or deletes its volumes with it",
        correct_pattern="docker stop NAME, then docker rm NAME (it refuses a running container); keep its volumes",
        severity="high",
        examples={
            "deny": ["docker rm -f web", "docker container rm --force db", "podman rm -v cache"],
            "allow": ["docker rm web", "docker stop web && docker rm web", "docker run --rm -it alpine sh"],
        },
    ),
    dict(
        id="containers:rmi-force",
        regex=ENGINE
        + r"(?:"
        + then("rmi")
        + r"|"
        + then("image")
        + then(r"rm|remove")
        + r")"
        + HELP
        + has(r"(?:" + short("f") + r"|--force)"),
        anti_pattern="docker rmi -f: deletes an image even while containers use it (a locally built image is then gone)",
        correct_pattern="docker rmi NAME without -f: it refuses an image in use; check with docker ps -a --filter ancestor=NAME",
        severity="high",
        examples={
            "deny": ["docker rmi -f app:latest", "docker image rm --force app", "podman rmi -f base"],
            "allow": ["docker rmi app:old", "docker image ls", "docker rmi --help"],
        },
    ),
    dict(
        id="containers:every-container",
        regex=ENGINE
        + r"(?:(?:"
        + then("container")
        + r")?"
        + then(r"stop|kill|rm|restart|pause")
        + EVERY_CONTAINER
        + r"|(?:"
        + then("rmi")
        + r"|"
        + then("image")
        + then(r"rm|remove")
        + r")"
        + EVERY_IMAGE
        + r")",
        anti_pattern="docker stop/kill/rm $(docker ps -q) or docker rmi $(docker images -q): acts on every container (or image) on the machine, not only this project's",
        correct_pattern="Name the containers (docker stop web db), or filter them: docker ps -q --filter name=myproj; docker compose down for a compose project",
        severity="high",
        examples={
            "deny": [
                "docker stop $(docker ps -q)",
                "docker rmi $(docker images -q)",
                "podman kill `podman ps -q`",
            ],
            "allow": [
                "docker stop web",
                "docker stop $(docker ps -q --filter name=web)",
                "docker compose stop",
            ],
        },
    ),
    dict(
        id="containers:every-container-piped",
        regex=XARGS_ALL,
        anti_pattern="docker ps -q | xargs docker stop (or kill, rm): acts on every container on the machine, not only this project's",
        correct_pattern="Filter the list (docker ps -q --filter name=myproj | xargs docker stop), or name the containers; docker compose down for a compose project",
        severity="high",
        examples={
            "deny": ["docker ps -q | xargs docker stop", "docker ps -aq | xargs -r docker rm"],
            "allow": ["docker ps -q --filter name=web | xargs docker stop", "docker ps -q | wc -l"],
        },
    ),
    dict(
        id="containers:stack-swarm",
        regex=ENGINE
        + HELP
        + r"(?:"
        + then("stack")
        + then(r"rm|remove|down")
        + r"|"
        + then("swarm")
        + then("leave")
        + has(r"(?:-[a-zA-Z]*f[a-zA-Z]*|--force)")
        + r")",
        anti_pattern="docker stack rm (every service of a stack) or docker swarm leave --force (a manager leaves, the swarm's state with it)",
        correct_pattern="docker stack ps / docker service ls first; scale or update one service; ask the person",
        severity="high",
        examples={
            "deny": ["docker stack rm shop", "docker swarm leave --force"],
            "allow": ["docker stack ls", "docker stack deploy -c stack.yml shop", "docker swarm leave"],
        },
    ),
    dict(
        id="containers:compose-down-volumes",
        regex=COMPOSE
        + then("down")
        + HELP
        + r"(?:"
        + has(r"(?:" + short("v") + r"|--volumes(?:=true)?)")
        + r"|"
        + has(r"--rmi(?:=|\s+)" + r"""["']?all""")
        + r")",
        anti_pattern="docker compose down -v (or --rmi all): deletes the project's volumes and their data (or every image its services use)",
        correct_pattern="docker compose down (keeps the volumes); delete a volume by name only once the person agrees",
        severity="high",
        examples={
            "deny": [
                "docker compose down -v",
                "docker-compose down --volumes",
                "docker compose -f prod.yml down --rmi all",
            ],
            "allow": [
                "docker compose down",
                "docker compose --dry-run down -v",
                "docker compose down --remove-orphans",
            ],
        },
    ),
    dict(
        id="containers:compose-rm",
        regex=COMPOSE + then("rm") + HELP + has(r"(?:" + short("fv") + r"|--force|--volumes)"),
        anti_pattern="docker compose rm -f (or -v): deletes the services' stopped containers without asking (with -v their anonymous volumes)",
        correct_pattern="docker compose rm without -f asks first; docker compose down for the whole project",
        severity="high",
        examples={
            "deny": ["docker compose rm -f", "docker-compose rm -fsv", "podman-compose rm -v worker"],
            "allow": ["docker compose rm --help", "docker compose ps", "docker compose stop worker"],
        },
    ),
]
