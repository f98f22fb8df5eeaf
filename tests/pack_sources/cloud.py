"""The cloud pack: aws, gcloud and gsutil, az, and the smaller platforms' CLIs (issue 37)."""

from __future__ import annotations

from pack_sources.words import OPTION, has, hasnt, lacks, program, then

POLICY = (
    "Denies what deletes cloud resources or many objects at once: aws s3 rm --recursive, s3 rb "
    "--force, s3 sync --delete, and any aws delete-* / terminate-* / batch-delete-* call on a "
    "resource (a bucket, an instance, a database, a stack, a role, a table); gcloud … delete "
    "(projects, clusters, instances, buckets …), gcloud storage rm -r, gsutil rm -r / rb / "
    "rsync -d; az … delete (groups, VMs, accounts, clusters …); doctl, hcloud, linode-cli "
    "deletes, heroku apps:destroy / pg:reset, fly apps destroy, vercel remove; mc rb / rm -r / "
    "mirror --remove, azcopy remove / sync --delete-destination. Passes: reading "
    "(describe, list, get, ls), creating, deploying, deleting one object or item (s3 rm of one "
    "key, s3api delete-object, dynamodb delete-item, az storage blob delete), local settings "
    "(gcloud config, aws configure, az tag), --dryrun / --dry-run, --generate-cli-skeleton, help, "
    "and these words as data."
)

DRY = lacks(r"(?:--dry-?run|--dryrun)(?:=true)?")
HELP = lacks(r"--help|-h|help")
# aws: the service, then the operation (`aws --profile p ec2 terminate-instances`).
ITEM_LEVEL = (
    r"delete-(?:object|item|message|message-batch|tags|attributes|object-tagging|bucket-tagging|alarms)"
)
AWS_DELETE = (
    r"(?!"
    + ITEM_LEVEL
    + r"(?=\s|$))(?:delete|terminate|batch-delete|deregister|purge)-[\w-]+|schedule-key-deletion|delete-bucket"
)
# --generate-cli-skeleton prints the call's input as JSON and calls nothing
AWS = program("aws") + HELP + DRY + hasnt(r"--generate-cli-skeleton(?:=\S*)?")


def gcloud_delete(excluded: str) -> str:
    """`gcloud [GROUP …] delete` where the first group is none of `excluded` (local settings)."""
    return (
        program("gcloud")
        + HELP
        + DRY
        + r"(?!(?:\s+"
        + OPTION
        + r")*?\s+(?:alpha\s+|beta\s+)?(?:"
        + excluded
        + r")(?=\s|$))(?:\s+(?:"
        + OPTION
        + r"|[a-z][\w-]*))*?\s+delete(?=\s|$)"
    )


def az_delete(excluded: str) -> str:
    return (
        program("az")
        + HELP
        + DRY
        + r"(?!(?:\s+"
        + OPTION
        + r")*?\s+(?:"
        + excluded
        + r")(?=\s|$))(?:\s+(?:"
        + OPTION
        + r"|[a-z][\w-]*))*?\s+(?:delete|delete-batch|purge|untag)(?=\s|$)"
    )


MC = program("mc", "mcli")
# minio's mc and azcopy: the programs, then what they do (one clause each, for the prefilter)
OBJECT_CLIENTS = (
    program("mc", "mcli", "azcopy")
    + HELP
    + DRY
    + r"(?:"
    + then(r"rb|remove")
    + r"|"
    + then("rm")
    + has(r"(?:--recursive|-r|--force|--versions)")
    + r"|"
    + then("mirror")
    + has(r"--remove")
    + r"|"
    + then("admin")
    + then(r"bucket")
    + then(r"delete|remove")
    + r"|"
    + then("sync")
    + has(r"--delete-destination(?:=|\s+)[\"']?(?:true|prompt)")
    + r")"
)

rules = [
    dict(
        id="cloud:aws-s3-bulk-delete",
        regex=AWS
        + then("s3")
        + r"(?:"
        + then("rm")
        + has("--recursive")
        + r"|"
        + then("rb")
        + has("--force")
        + r"|"
        + then("sync")
        + has("--delete")
        + r")",
        anti_pattern="aws s3 rm --recursive, s3 rb --force, s3 sync --delete: delete every object under a prefix, a whole bucket, or what the source lacks",
        correct_pattern="Add --dryrun and read what it lists; delete the keys you wrote by name; ask the person for a bucket",
        severity="critical",
        examples={
            "deny": [
                "aws s3 rm s3://logs/2023/ --recursive",
                "aws s3 rb s3://old-site --force",
                "aws s3 sync build/ s3://site --delete",
            ],
            "allow": [
                "aws s3 rm s3://logs/2023/ --recursive --dryrun",
                "aws s3 rm s3://bucket/key.txt",
                "aws s3 ls s3://logs/",
            ],
        },
    ),
    dict(
        id="cloud:aws-delete",
        regex=AWS + then(r"(?!s3(?=\s|$))[a-z][\w-]*") + then(AWS_DELETE),
        anti_pattern="aws … delete-* / terminate-* (a bucket, an instance, a database, a stack, a table, a role): the resource and its data are gone",
        correct_pattern="describe it first, take a snapshot or backup; --dry-run where the service has one (ec2); ask the person to delete it",
        severity="critical",
        examples={
            "deny": [
                "aws ec2 terminate-instances --instance-ids i-0abc",
                "aws rds delete-db-instance --db-instance-identifier prod --skip-final-snapshot",
                "aws --profile prod cloudformation delete-stack --stack-name api",
                "aws s3api delete-bucket --bucket old-site",
            ],
            "allow": [
                "aws ec2 terminate-instances --instance-ids i-0abc --dry-run",
                "aws s3api delete-object --bucket b --key k",
                "aws ec2 describe-instances",
                "aws cloudformation delete-stack help",
            ],
        },
    ),
    dict(
        id="cloud:gcloud-delete",
        regex=r"(?:"
        + gcloud_delete(r"config|auth|components|topic|help|init")
        + r"|"
        + program("gcloud")
        + HELP
        + then("storage")
        + r"(?:"
        + then("rm")
        + has(r"(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)")
        + r"|"
        + then("rsync")
        + has(r"--delete-unmatched-destination-objects")
        + r"))",
        anti_pattern="gcloud … delete (a project, a cluster, an instance, a bucket, a database) or gcloud storage rm -r: the resource and its data are gone",
        correct_pattern="gcloud … describe first, export or snapshot what matters; ask the person to delete it",
        severity="critical",
        examples={
            "deny": [
                "gcloud projects delete my-project",
                "gcloud container clusters delete prod --zone us-central1-a",
                "gcloud storage rm -r gs://bucket/data",
            ],
            "allow": [
                "gcloud config configurations delete old",
                "gcloud compute instances list",
                "gcloud projects delete --help",
            ],
        },
    ),
    dict(
        id="cloud:gsutil-delete",
        regex=program("gsutil")
        + HELP
        + r"(?:"
        + then("rm")
        + r"(?:"
        + has(r"-[a-zA-Z]*[rRa][a-zA-Z]*")
        + r"|"
        + has(r"\S*/\*\*")
        + r")|"
        + then("rb")
        + r"|"
        + then("rsync")
        + has(r"-[a-zA-Z]*d[a-zA-Z]*")
        + hasnt(r"-[a-zA-Z]*n[a-zA-Z]*")
        + r")",
        anti_pattern="gsutil rm -r (or gs://bucket/**), gsutil rb, gsutil rsync -d: delete every object under a prefix, a bucket, or what the source lacks",
        correct_pattern="gsutil ls what would go; rsync -n shows it; delete objects by name; ask the person for a bucket",
        severity="critical",
        examples={
            "deny": [
                "gsutil rm -r gs://bucket/data",
                "gsutil -m rm gs://bucket/**",
                "gsutil rb gs://old",
                "gsutil rsync -d -r dist gs://site",
            ],
            "allow": [
                "gsutil rm gs://bucket/file.txt",
                "gsutil rsync -n -d -r dist gs://site",
                "gsutil ls gs://bucket",
            ],
        },
    ),
    dict(
        id="cloud:az-delete",
        regex=r"(?!^az\s(?:\S+\s)*?storage\s(?:blob|entity|file|message)\sdelete(?=\s|$))"
        + az_delete(r"config|cache|extension|account|login|logout|tag"),
        anti_pattern="az … delete (a resource group, a VM, a storage account, a cluster, a key vault): the resource and everything in it are gone",
        correct_pattern="az … show first; az group export for a group; ask the person to delete it",
        severity="critical",
        examples={
            "deny": [
                "az group delete --name rg-prod --yes",
                "az vm delete -g rg -n vm1",
                "az storage blob delete-batch -s data --account-name acct",
            ],
            "allow": [
                "az group list",
                "az storage blob delete -c data -n file.txt --account-name acct",
                "az group delete --help",
            ],
        },
    ),
    dict(
        id="cloud:object-store-delete",
        regex=OBJECT_CLIENTS,
        anti_pattern="mc rb, mc rm --recursive/--force, mc mirror --remove, azcopy remove, azcopy sync --delete-destination: delete a bucket, every object under a path, or what the source lacks",
        correct_pattern="mc ls / azcopy list what would go (azcopy has --dry-run); delete objects by name; ask the person for a bucket",
        severity="critical",
        examples={
            "deny": [
                "mc rb --force myminio/bucket",
                "mc rm --recursive --force myminio/data/",
                "azcopy remove https://acct.blob.core.windows.net/c --recursive",
            ],
            "allow": [
                "mc ls myminio/bucket",
                "mc rm myminio/bucket/file.txt",
                "azcopy copy ./a https://acct.blob.core.windows.net/c",
                "azcopy remove https://acct.blob.core.windows.net/c --dry-run",
            ],
        },
    ),
    dict(
        id="cloud:platform-delete",
        regex=program(
            "doctl",
            "hcloud",
            "linode-cli",
            "civo",
            "scw",
            "exo",
            "oci",
            "ibmcloud",
            "upcloud",
            "heroku",
            "fly",
            "flyctl",
            "vercel",
            "netlify",
            "firebase",
        )
        + HELP
        + r"(?!(?:\s+"
        + OPTION
        + r")*?\s+(?:auth|config|context|login|logout|env|secrets?|alias|domains?\s+rm)(?=\s|$))"
        + r"(?:\s+(?:"
        + OPTION
        + r"|[a-z][\w-]*))*?\s+"
        + r"(?:delete|rm|destroy|remove|apps:destroy|apps:delete|pg:reset|addons:destroy|sites:delete"
        + r"|projects:delete|firestore:delete|database:remove)(?=\s|$)",
        anti_pattern="doctl/hcloud/linode-cli … delete, heroku apps:destroy or pg:reset, fly apps destroy, vercel remove, firebase firestore:delete: the app, server or data is gone",
        correct_pattern="List and back up first; ask the person to delete it",
        severity="critical",
        examples={
            "deny": [
                "doctl compute droplet delete web-1 --force",
                "heroku apps:destroy --app my-app --confirm my-app",
                "fly apps destroy my-app -y",
                "firebase firestore:delete --all-collections",
            ],
            "allow": [
                "doctl compute droplet list",
                "heroku logs --tail",
                "fly deploy",
                "vercel deploy --prod",
            ],
        },
    ),
]
