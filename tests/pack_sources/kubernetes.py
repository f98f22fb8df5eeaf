"""The kubernetes pack: kubectl (and oc, kubecolor) and helm (issue 37)."""

from __future__ import annotations

from pack_sources.words import END, HELP, OPTION, SP, Q, has, lacks, program, then

POLICY = (
    "Denies what deletes from a cluster what it cannot bring back, or stops every workload: "
    "kubectl delete of anything but single pods, events and jobs (namespaces, deployments, "
    "volumes and their claims, secrets, -f FILE, -k DIR), delete --all / -A on any kind, a "
    "delete forced with --grace-period=0, drain, scale --replicas=0, a NoExecute taint, apply "
    "--prune or --force, replace --force; helm uninstall, helm rollback and helm upgrade --force. "
    "Passes: get, describe, logs, diff, explain, apply, cordon, deleting one pod (its controller "
    "makes another), every --dry-run=client|server, --help, and these words as data. A "
    "manifest's contents are not read: `kubectl delete -f FILE` is denied for what it may hold."
)

KUBECTL = program("kubectl", "oc", "kubecolor")
DRY = lacks(r"--dry-run(?:=(?:client|server))?")  # --dry-run=none runs for real
HELM_DRY = lacks(r"--dry-run(?:=\S*)?")


def kubectl(verb: str) -> str:
    return KUBECTL + HELP + DRY + then(verb)


# The first word after `delete` that is no option: the kind (`pod`, `pods,svc`, `deploy/web`).
SAFE_KINDS = r"(?:pods?|po|events?|ev|jobs?)(?:\.[\w.]+)?(?:/\S*)?"
ONLY_SAFE_KIND = r"(?=(?:" + SP + OPTION + r")*?" + SP + Q + SAFE_KINDS + END + r")"
HAS_KIND = r"(?=(?:" + SP + OPTION + r")*?" + SP + Q + r"[A-Za-z])"

rules = [
    dict(  # one rule for every `kubectl delete`: one regex to compile when a call says it
        id="kubernetes:delete",
        regex=kubectl("delete")
        + r"(?:(?!"
        + ONLY_SAFE_KIND
        + r")"
        + HAS_KIND
        + r"|"
        + has(r"(?:-[a-zA-Z]*[fk][a-zA-Z]*|--filename|--kustomize|--filename=\S+|--kustomize=\S+)")
        + r"|"
        + has(r"(?:--all|-A|--all-namespaces)(?:=true)?")
        + r"|"
        + has(r"--force(?:=true)?")
        + has(r"(?:--grace-period(?:=|\s+)0|--now)")
        + r")",
        anti_pattern="kubectl delete (a namespace, a deployment, a volume claim, a secret, everything in a manifest, every pod with --all/-A, or a pod forced with --grace-period=0): removes it from the cluster, with its data, and nothing brings it back",
        correct_pattern="Check what would go first: kubectl delete ... --dry-run=server, kubectl diff -f FILE; ask the person before deleting; deleting one pod (its controller makes another) is fine",
        severity="critical",
        examples={
            "deny": [
                "kubectl delete namespace staging",
                "kubectl -n prod delete deploy/api",
                "kubectl delete -f k8s/",
                "kubectl delete pvc data-postgres-0",
                "kubectl delete pods --all",
                "kubectl delete pod web-0 --force --grace-period=0",
            ],
            "allow": [
                "kubectl delete pod web-7d9f-abcde",
                "kubectl delete namespace staging --dry-run=server",
                "kubectl delete pods --all --dry-run=client",
                "kubectl delete pod web-0 --grace-period=30",
                "kubectl get ns",
                "kubectl delete --help",
            ],
        },
    ),
    dict(
        id="kubernetes:drain",
        regex=kubectl("drain"),
        anti_pattern="kubectl drain: evicts every pod from a node (workloads without a disruption budget go down)",
        correct_pattern="kubectl cordon NODE stops new pods there; drain only with the person, after kubectl drain NODE --dry-run=server",
        severity="high",
        examples={
            "deny": [
                "kubectl drain node-1 --ignore-daemonsets",
                "kubectl drain worker-2 --delete-emptydir-data --force",
            ],
            "allow": ["kubectl cordon node-1", "kubectl drain node-1 --dry-run=server"],
        },
    ),
    dict(
        id="kubernetes:scale-to-zero",
        regex=kubectl("scale") + has(r"--replicas(?:=|\s+)0"),
        anti_pattern="kubectl scale --replicas=0: stops every pod of the workload (the service is down)",
        correct_pattern="Scale down by one step, or ask the person; kubectl rollout restart restarts pods without downtime",
        severity="high",
        examples={
            "deny": [
                "kubectl scale deploy/api --replicas=0",
                "kubectl -n prod scale statefulset db --replicas 0",
            ],
            "allow": ["kubectl scale deploy/api --replicas=3", "kubectl rollout restart deploy/api"],
        },
    ),
    dict(
        id="kubernetes:taint-noexecute",
        regex=kubectl("taint") + has(r"\S*:NoExecute"),
        anti_pattern="kubectl taint ...:NoExecute: evicts at once every pod on the node that does not tolerate it",
        correct_pattern="Use NoSchedule (new pods only), or cordon the node; remove a taint with KEY:NoExecute-",
        severity="high",
        examples={
            "deny": ["kubectl taint nodes node-1 dedicated=gpu:NoExecute"],
            "allow": [
                "kubectl taint nodes node-1 dedicated=gpu:NoSchedule",
                "kubectl taint nodes node-1 dedicated:NoExecute-",
            ],
        },
    ),
    dict(
        id="kubernetes:apply-prune-force",
        regex=KUBECTL
        + HELP
        + DRY
        + r"(?:"
        + then("apply")
        + has(r"(?:--prune|--force)(?:=true)?")
        + r"|"
        + then("replace")
        + has(r"--force(?:=true)?")
        + r")",
        anti_pattern="kubectl apply --prune (deletes what the manifests no longer list), apply --force or replace --force (deletes and recreates the objects)",
        correct_pattern="kubectl diff -f FILE, then kubectl apply -f FILE without --prune/--force; delete what must go by name",
        severity="high",
        examples={
            "deny": ["kubectl apply --prune -l app=web -f k8s/", "kubectl replace --force -f pod.yaml"],
            "allow": [
                "kubectl apply -f k8s/",
                "kubectl apply --prune -f k8s/ --dry-run=server",
                "kubectl diff -f k8s/",
            ],
        },
    ),
    dict(
        id="kubernetes:helm-uninstall",
        regex=program("helm")
        + HELP
        + HELM_DRY
        + r"(?:"
        + then(r"uninstall|delete|del|un|rollback")
        + r"|"
        + then("upgrade")
        + has(r"--force(?:=true)?")
        + r")",
        anti_pattern="helm uninstall (removes the release and every resource it made), helm rollback (the release goes back to an old revision), helm upgrade --force (deletes and recreates resources)",
        correct_pattern="helm status / helm history first; add --dry-run to see what would change; ask the person",
        severity="high",
        examples={
            "deny": [
                "helm uninstall my-app -n prod",
                "helm rollback api 3",
                "helm upgrade web ./chart --force",
            ],
            "allow": [
                "helm uninstall my-app --dry-run",
                "helm history api",
                "helm upgrade --install web ./chart",
            ],
        },
    ),
]
