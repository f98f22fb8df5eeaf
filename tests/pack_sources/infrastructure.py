"""The infrastructure pack: terraform, OpenTofu, terragrunt, pulumi, the CDK, SAM, serverless (issue 37)."""

from __future__ import annotations

from pack_sources.words import has, hasnt, lacks, program, then

POLICY = (
    "Denies what destroys managed infrastructure or applies changes nobody reviewed: terraform "
    "(tofu, terragrunt) destroy and apply -destroy, apply -auto-approve, state rm / mv / push, "
    "force-unlock, workspace delete; pulumi destroy, up --yes, stack rm, state delete; cdk "
    "destroy, sam delete, serverless remove. Passes: init, validate, fmt, plan (plan -destroy "
    "too: a plan is a preview), apply that asks first or applies a saved plan, state list/show, "
    "the -dry-run of state rm/mv, pulumi preview and destroy --preview-only, cdk diff/synth, "
    "-help, and these words as data. A module's or stack's code is not read."
)

TF = program("terraform", "tofu", "terragrunt")
HELP = lacks(r"-help|--help|-h|help")
RUN_ALL = r"(?:" + then(r"run-all|run") + r")?"  # terragrunt run-all destroy, terragrunt run --all destroy


def tf(*words: str) -> str:
    return TF + HELP + RUN_ALL + "".join(then(word) for word in words)


rules = [
    dict(
        id="infrastructure:terraform-destroy",
        regex=tf()
        + r"(?:"
        + then(r"destroy|destroy-all")
        + r"|"
        + then(r"apply|apply-all")
        + has(r"-?-destroy(?:=true)?")
        + r")",
        anti_pattern="terraform destroy (or apply -destroy): destroys every resource of the configuration (databases, buckets, networks) for real",
        correct_pattern="terraform plan -destroy shows what would go; the person runs destroy themselves after reading it",
        severity="critical",
        examples={
            "deny": [
                "terraform destroy",
                "tofu destroy -auto-approve",
                "terraform -chdir=infra apply -destroy",
            ],
            "allow": ["terraform plan -destroy", "terraform destroy -help", "terraform apply tfplan"],
        },
    ),
    dict(
        id="infrastructure:terraform-auto-approve",
        regex=tf("apply") + has(r"-?-auto-approve(?:=true)?"),
        anti_pattern="terraform apply -auto-approve: applies every change of the plan, replacements and deletions included, without anyone reading it",
        correct_pattern="terraform plan -out=tfplan, show the plan to the person, then terraform apply tfplan",
        severity="high",
        examples={
            "deny": [
                "terraform apply -auto-approve",
                "terragrunt run-all apply -auto-approve",
                "tofu apply --auto-approve",
            ],
            "allow": ["terraform plan -out=tfplan", "terraform apply tfplan", "terraform apply"],
        },
    ),
    dict(
        id="infrastructure:terraform-state",
        regex=tf("state", r"rm|mv|push|replace-provider") + hasnt(r"-?-dry-run(?:=true)?"),
        anti_pattern="terraform state rm / mv / push: rewrites the state (resources then go unmanaged, get recreated, or another state is overwritten)",
        correct_pattern="terraform state list / show first; state rm -dry-run (or mv -dry-run) shows the change; back up the state (terraform state pull > backup.tfstate)",
        severity="high",
        examples={
            "deny": [
                "terraform state rm aws_s3_bucket.logs",
                "terraform state push backup.tfstate",
                "tofu state mv a b",
            ],
            "allow": [
                "terraform state list",
                "terraform state rm -dry-run aws_s3_bucket.logs",
                "terraform state pull",
            ],
        },
    ),
    dict(
        id="infrastructure:terraform-unlock-workspace",
        regex=tf() + r"(?:" + then("force-unlock") + r"|" + then("workspace") + then("delete") + r")",
        anti_pattern="terraform force-unlock (another run may still be writing the state) or workspace delete (its state goes)",
        correct_pattern="Find out who holds the lock and wait; terraform workspace list/select; ask the person",
        severity="high",
        examples={
            "deny": ["terraform force-unlock 6638e3ba", "terraform workspace delete staging"],
            "allow": ["terraform workspace list", "terraform workspace select dev"],
        },
    ),
    dict(
        id="infrastructure:pulumi-destroy",
        regex=program("pulumi")
        + HELP
        + r"(?:"
        + then(r"destroy|down")
        + hasnt(r"--preview-only(?:=true)?")
        + r"|"
        + then(r"up|update")
        + has(r"(?:-[a-zA-Z]*y[a-zA-Z]*|--yes)(?:=true)?")
        + r"|"
        + then("stack")
        + then(r"rm|remove")
        + r"|"
        + then("state")
        + then("delete")
        + r")",
        anti_pattern="pulumi destroy (every resource of the stack), up --yes (applies unreviewed), stack rm or state delete (the state goes)",
        correct_pattern="pulumi preview (or destroy --preview-only), show it to the person; pulumi up without --yes asks first",
        severity="critical",
        examples={
            "deny": ["pulumi destroy --yes", "pulumi up -y --stack prod", "pulumi stack rm dev --force"],
            "allow": ["pulumi preview", "pulumi destroy --preview-only", "pulumi stack ls"],
        },
    ),
    dict(
        id="infrastructure:stack-delete",
        regex=program("cdk", "cdktf", "aws-cdk", "sam", "serverless", "sls")
        + HELP
        + then(r"destroy|delete|remove"),
        anti_pattern="cdk destroy, sam delete, serverless remove: delete the deployed stack and its resources",
        correct_pattern="cdk diff / sam list resources first; ask the person to delete the stack",
        severity="critical",
        examples={
            "deny": [
                "cdk destroy --all --force",
                "npx cdk destroy MyStack",
                "sam delete --stack-name api",
                "serverless remove --stage prod",
            ],
            "allow": ["cdk diff", "cdk synth", "sam deploy --guided", "serverless deploy --stage dev"],
        },
    ),
]
