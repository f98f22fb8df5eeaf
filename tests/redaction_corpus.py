"""A labelled set for the one redactor (cortex_hooks.redact; issue 23 items 4 and 5): secrets of
each kind in the places they turn up in a session (commands, prompts, config files, output), and
texts without a secret that must come out unchanged.

Two sources, both ours:
- tests/fixtures/redaction_gitleaks.jsonl: for the rules of gitleaks' default rule set (read from
  ../shared/corpora/gitleaks/gitleaks.toml by tests/test_redaction.py, never copied here), a
  value drawn at random (fixed seed) from the shape the rule's own regex gives its secret, set in
  contexts written by us: neutral ones for the rules that recognise a shape (`echo …`, a quoted
  value), named ones for the rules that need a keyword (`export ADAFRUIT_API_KEY=…`, JSON).
  Values are stored reversed (`terces`) so no scanner takes this repository for a leak.
- below: what the issue names (password options, URLs with credentials, connection strings,
  Authorization headers, `*_TOKEN=` …), the gitleaks rules whose context a sample cannot invent
  (curl, Kubernetes secrets, private keys …), a few hard cases, and the non-secrets.

`python tests/redaction_corpus.py` prints recall per kind and the false redaction rate.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

GITLEAKS_EXAMPLES = Path(__file__).parent / "fixtures" / "redaction_gitleaks.jsonl"


@dataclass(frozen=True)
class Secret:
    kind: str
    text: str  # where the secret stands, as `{secret}`
    secret: str
    rule: str | None = None  # the gitleaks rule this example is of, if any

    @property
    def filled(self) -> str:
        return self.text.replace("{secret}", self.secret)


# Kinds of gitleaks rules, by the vendor their id starts with (the rest: other SaaS APIs).
_VENDOR_KINDS = {
    "cloud & infrastructure": "aws gcp azure alibaba yandex digitalocean cloudflare heroku flyio scalingo"
    " netlify vault hashicorp pulumi openshift databricks clickhouse planetscale doppler prefect harness"
    " infracost octopus defined fastly confluent dynatrace grafana new sumologic datadog",
    "source control & CI": "github gitlab bitbucket atlassian travisci droneci codecov sonar snyk"
    " sourcegraph jfrog artifactory gitter linear postman readme",
    "package registries": "npm pypi rubygems clojars nuget",
    "messaging & email": "slack discord telegram microsoft mattermost twilio sendbird messagebird"
    " intercom sendgrid sendinblue mailgun mailchimp",
    "payments & commerce": "stripe square squarespace shopify plaid coinbase kraken kucoin bittrex"
    " gocardless flutterwave finicity duffel shippo easypost lob freshbooks etsy",
    "AI APIs": "openai anthropic cohere huggingface perplexity privateai",
    "private keys": "private age",
    "JWT": "jwt",
    "named secret (generic)": "generic",
    "curl credentials": "curl",
}


def kind_of_rule(rule: str) -> str:
    vendor = rule.split("-", 1)[0]
    for kind, vendors in _VENDOR_KINDS.items():
        if vendor in vendors.split():
            return kind
    return "other SaaS APIs"


def gitleaks_examples() -> list[Secret]:
    found = []
    for line in GITLEAKS_EXAMPLES.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        secret = entry["terces"][::-1]
        found += [Secret(kind_of_rule(entry["rule"]), text, secret, entry["rule"]) for text in entry["texts"]]
    return found


def _pem(label: str, body: str) -> str:
    dashes = "-" * 5
    lines = "\n".join(body[index : index + 64] for index in range(0, len(body), 64))
    return f"{dashes}BEGIN {label}{dashes}\n{lines}\n{dashes}END {label}{dashes}"


_BODY = (
    "mA3k8nSV9/qT2GIdiKIDq2Iz+GPPcORl4TXX0UIbFNwJjHPzRB3Lo++tvHRlTlchIegkRev6xWQCrKELP6ex79pNDxGT2cO"
    "K+bRwtelqsxwRtl3uEbXyIMEEXZZF+9sA28m2p77MYTUJvx8TgOjUkeE9EsvoHC68TPpl6eUEZDdKzunX7ukI7UeWaF3iA7H"
    "50VFEsMJe+L8GfG/yHGg05nGEYWzYdKoNLUJbC4t+2wQBn5cORn9LhzoQQK8fK2fjH/fGZkvMJ1owAkQD4SCG2iNwQpInVRh"
)
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0Ijo"
    "xNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
_JWT_BASE64 = (
    "ZXlKaGJHY2lPaUpJVXpJMU5pSXNJblI1Y0NJNklrcFhWQ0o5LmV5SnpkV0lpT2lJeE1qTTBOVFkzT0Rrd0lpd2libUZ0WlNJ"
    "NklrcHZhRzRnUkc5bElpd2lhV0YwSWpveE5URTJNak01TURJeWZRLlNmbEt4d1JKU01lS0tGMlFUNGZ3cE1lSmYzNlBPazZ5"
    "SlZfYWRRc3N3NWM="
)

HAND_WRITTEN = [
    # --- password options ---
    Secret("password option", "sshpass -p {secret} ssh deploy@10.0.0.5", "Tr0ub4dor-3"),
    Secret("password option", "sshpass -p'{secret}' ssh -p 2222 deploy@host", "hunter two 2"),
    Secret("password option", "sshpass -p{secret} rsync -e ssh a host:b", "Zq8-vault-pw"),
    Secret("password option", "mysql -u root -p{secret} shop", "s3cr3t-mysql"),
    Secret("password option", "mysql -h db -P 3306 -u app -p {secret}", "plainword"),
    Secret("password option", "mysqldump -uroot -p'{secret}' --all-databases > dump.sql", "P@ss w0rd!"),
    Secret("password option", "mysql --password={secret} -e 'show databases'", "Sup3r-S3cret"),
    Secret("password option", "psql --password {secret} -h db", "pgpass-991"),
    Secret("password option", "docker login -u ci -p {secret} registry.example.com", "dckr-pw-7781"),
    Secret("password option", "podman login --username ci --password {secret} quay.io", "quayPw1234"),
    Secret("password option", "redis-cli -h cache -a {secret} ping", "r3dis-auth"),
    Secret("password option", "ldapsearch -x -D cn=admin -w {secret} -b dc=ex", "ldapPw-55"),
    Secret("password option", "zip -P {secret} backup.zip notes.txt", "zip-pw-123"),
    Secret("password option", "7z x -p{secret} archive.7z", "7zSecret9"),
    Secret("password option", "sqlcmd -S db -U sa -P {secret} -Q 'select 1'", "Mssql-Pw-88"),
    Secret("password option", "mongosh mongodb://db --username admin -p {secret}", "mongo-pw-12"),
    Secret("password option", "openssl enc -aes-256-cbc -k {secret} -in a -out b", "enc-key-passphrase"),
    Secret("password option", "openssl pkcs12 -export -passout pass:{secret} -out c.p12", "p12-export-pw"),
    Secret("password option", "keytool -importcert -storepass {secret} -file c.crt", "changeit-not"),
    Secret("password option", "wget --user=bob --password={secret} https://example.com/f", "wgetPw77"),
    Secret("password option", "curl -u alice:{secret} https://api.example.com/v1", "Wonderland-42"),
    Secret("password option", "curl --proxy-user me:{secret} -x proxy:8080 https://x", "proxyPw-1"),
    Secret("password option", "smbclient //fs/share -U bob%{secret}", "smbPass-4"),
    Secret("password option", "sqlplus -s scott/{secret}@orcl @report.sql", "tigerTiger9"),
    Secret("password option", "htpasswd -b -c .htpasswd admin {secret}", "htPw-2024x"),
    Secret("password option", "az login -u me@example.com -p {secret}", "AzurePw-99"),
    # --- issue 34 item 7: where else a password stands ---
    Secret("password fed on stdin", "echo '{secret}' | sudo -S apt-get install -y nginx", "Tr0ub4dor-7"),
    Secret("password fed on stdin", "echo {secret} | sudo -S -k systemctl restart app", "hunter2sudo"),
    Secret("password fed on stdin", "printf '%s\\n' '{secret}' | sudo --stdin ls /root", "S3cret-pr1ntf"),
    Secret("password fed on stdin", "sudo -S chown -R www-data /srv <<< '{secret}'", "here-Str1ng"),
    Secret("password fed on stdin", "echo '{secret}' | passwd --stdin deploy", "N3w-passwd"),
    Secret("password fed on stdin", "echo 'deploy:{secret}' | sudo chpasswd", "Chp4sswd-x"),
    Secret("password fed on stdin", "chpasswd <<< 'alice:{secret}'", "W0nderland!"),
    Secret(
        "password fed on stdin", "echo {secret} | docker login -u ci --password-stdin ghcr.io", "dckrPw77x"
    ),
    Secret("password fed on stdin", "echo {secret} | gh auth login --with-token", "gho-notreal-123"),
    Secret("password option", "ssh-keygen -t ed25519 -N '{secret}' -f ~/.ssh/deploy", "key phrase 42"),
    Secret("password option", "ssh-keygen -p -P {secret} -N newphrase9 -f id_rsa", "oldphrase9"),
    Secret("password option", "gh secret set DEPLOY_TOKEN --body '{secret}' -R acme/app", "dpl-tok-98765"),
    Secret("password option", "gh secret set DB_PASS --body={secret}", "gh-b0dy-pw"),
    Secret("password option", "useradd -m -p '{secret}' deploy", "$6$rounds$Q2xY7zPqvR1"),
    Secret("password option", "usermod --password {secret} alice", "$y$j9T$abcDEF123"),
    Secret("netrc line", "machine api.heroku.com login me@example.com password {secret}", "netrcPw-17"),
    Secret("netrc line", "machine github.com\n  login octocat\n  password {secret}\n", "nEtrc-line-2"),
    Secret(
        "expect send",
        'expect -c \'spawn ssh db; expect "*assword:"; send "{secret}\\r"; interact\'',
        "exp3ct-Pw",
    ),
    Secret("expect send", 'expect "Enter passphrase*"\nsend -- "{secret}\\r"', "phr4se-send"),
    Secret("named value", "export MY_API={secret}", "sk_live9abc123def"),
    Secret("named value", "STRIPE_API_LIVE={secret} node server.js", "rk12345abcdefgh"),
    Secret("named value", '"private_key_id": "{secret}"', "1234567890abcdef1234567890abcdef12345678"),
    Secret("heroku key", "heroku api key: {secret}", "01234567-89ab-cdef-0123-456789abcdef"),
    Secret("heroku key", "HEROKU_API_KEY={secret} heroku apps", "fedcba98-7654-3210-fedc-ba9876543210"),
    Secret("password in plain prose", "my github password is {secret}, please rotate it", "Spring2024!"),
    Secret("password in plain prose", "My password for the staging box is {secret}.", "hunter2box"),
    # --- names that say secret (issue 23.4/5: *_TOKEN=, *_SECRET=, *_KEY=, PGPASSWORD=) ---
    Secret("named value", "PGPASSWORD={secret} psql -h db -U app -c 'select 1'", "hunter2"),
    Secret("named value", "MYSQL_PWD={secret} mysql -u app", "mysqlpwd-5"),
    Secret("named value", "export SLACK_BOT_TOKEN={secret}", "local-dev-token-value"),
    Secret("named value", "export STRIPE_WEBHOOK_SECRET='{secret}'", "whs-test-9f8e7d"),
    Secret("named value", "OPENAI_API_KEY={secret} python app.py", "my-key-for-dev"),
    Secret("named value", "ENCRYPTION_KEY={secret} ./run.sh", "0123456789abcdef0123"),
    Secret("named value", 'settings = {{"apiKey": "{secret}", "region": "eu"}}', "AbCdEf123456"),
    Secret("named value", "  client_secret: {secret}", "yaml-client-secret-1"),
    Secret("named value", "db.password = {secret}", "props-pass-7"),
    Secret("named value", "app --auth-token {secret} --verbose", "cli-token-abc1"),
    Secret("named value", "deploy --client-secret={secret}", "cs-Zz99-yy"),
    Secret("named value", '$env:API_TOKEN = "{secret}"', "ps-token-4455"),
    Secret("named value", "SESSION_ID={secret}", "a8f5f167f44f4964e6c998dee827110c"),
    Secret("named value", 'DATABASE_PASSWORD="{secret}" rails s', "Rails pw with spaces"),
    # --- URLs with credentials, connection strings ---
    Secret(
        "URL credentials", "git clone https://oauth2:{secret}@gitlab.example.com/g/p.git", "tok3n-value-1"
    ),
    Secret("URL credentials", "psql postgresql://app:{secret}@db.internal:5432/main", "Zx9-pw-77"),
    Secret("URL credentials", "redis://default:{secret}@cache:6379/0", "redisPw!1"),
    Secret(
        "URL credentials",
        "pip install --index-url https://user:{secret}@pypi.example.com/simple x",
        "idx-pw-3",
    ),
    Secret("URL credentials", "amqp://guest:{secret}@mq:5672/", "rabbit-pw-2"),
    Secret("connection string", "mongodb+srv://admin:{secret}@cluster0.abc.mongodb.net/db", "Mongo-Atlas-1"),
    Secret("connection string", "Server=db;Database=shop;User Id=sa;Password={secret};", "Sql-Server-9!"),
    Secret("connection string", "Data Source=db;Initial Catalog=x;Pwd={secret};", "odbcPwd-3"),
    Secret("connection string", "jdbc:mysql://db:3306/shop?user=app&password={secret}&ssl=true", "jdbcPw-6"),
    Secret(
        "connection string",
        "DefaultEndpointsProtocol=https;AccountName=st;AccountKey={secret};",
        "k1Zb9y8X+Qw7v6U/t5S4r3Q2p1O0nMlKjIhGfEdCbA==",
    ),
    Secret("connection string", "DATABASE_URL=postgres://u:{secret}@h/d", "dbUrlPw-4"),
    # --- Authorization and other auth headers ---
    Secret(
        "Authorization header",
        'curl -H "Authorization: Bearer {secret}" https://api.example.com',
        "opaque-bearer-value-1",
    ),
    Secret("Authorization header", "Authorization: Basic {secret}", "YWxpY2U6V29uZGVybGFuZC00Mg=="),
    Secret("Authorization header", "Authorization: token {secret}", "abc123opaque"),
    Secret("Authorization header", "http GET :8080/x 'X-Api-Key: {secret}'", "apikey-value-42"),
    Secret("Authorization header", "Cookie: session={secret}; theme=dark", "s3ss10n-cookie"),
    Secret(
        "Authorization header",
        "git -c http.extraheader='AUTHORIZATION: basic {secret}' fetch",
        "Z2l0OnB3ZA==",
    ),
    Secret("Authorization header", "PRIVATE-TOKEN: {secret}", "gitlab-priv-tok-1"),
    # --- gitleaks rules whose context a sample cannot invent ---
    Secret(
        "curl credentials",
        'curl -H "Authorization: Bearer {secret}" https://x',
        "x7Y8z9W0v1U2",
        "curl-auth-header",
    ),
    Secret(
        "curl credentials",
        "curl https://x --header 'X-Api-Key: {secret}'",
        "k9J8h7G6f5D4",
        "curl-auth-header",
    ),
    Secret(
        "curl credentials",
        "curl -u deploy:{secret} https://ci.example.com/job",
        "ciDeployPw9",
        "curl-auth-user",
    ),
    Secret("curl credentials", "curl --user 'svc:{secret}' https://x", "svc-account-pw", "curl-auth-user"),
    Secret("private keys", "{secret}", _pem("RSA PRIVATE KEY", _BODY), "private-key"),
    Secret(
        "private keys", "cat > key <<EOF\n{secret}\nEOF", _pem("OPENSSH PRIVATE KEY", _BODY), "private-key"
    ),
    Secret(
        "private keys",
        '{{"private_key": "{secret}"}}',
        _pem("PRIVATE KEY", _BODY).replace("\n", "\\n"),
        "private-key",
    ),
    Secret("private keys", "{secret}", _pem("PGP PRIVATE KEY BLOCK", _BODY), "private-key"),
    Secret("JWT", "Authorization header was {secret}", _JWT, "jwt"),
    Secret("JWT", "echo {secret} | jwt decode -", _JWT, "jwt"),
    Secret("JWT", "token file holds {secret}", _JWT_BASE64, "jwt-base64"),
    Secret(
        "named secret (generic)", "export MY_SERVICE_API_KEY={secret}", "q7W9e2R4t6Y8u0I1", "generic-api-key"
    ),
    Secret(
        "named secret (generic)", 'const credentials = "{secret}";', "Gh7Jk9Lm2Nb4Vc6X", "generic-api-key"
    ),
    Secret("named secret (generic)", "auth_token: {secret}", "zX8cV6bN4mQ2wE0r", "generic-api-key"),
    Secret("named secret (generic)", 'password = "{secret}"', "s0me-Pa55word-x9", "generic-api-key"),
    Secret(
        "cloud & infrastructure",
        'administrator_login_password = "{secret}"',
        "Adm1n-Pa55-77",
        "hashicorp-tf-password",
    ),
    Secret(
        "cloud & infrastructure",
        "kind: Secret\nmetadata:\n  name: db\ndata:\n  password: {secret}\n",
        "cG9zdGdyZXMtcHctOTk=",
        "kubernetes-secret-yaml",
    ),
    Secret(
        "cloud & infrastructure",
        "apiVersion: v1\nkind: Secret\ndata:\n  db-url: {secret}\n",
        "cG9zdGdyZXM6Ly9hcHA6Wng5LXB3LTc3QGRiLmludGVybmFsOjU0MzIvbWFpbg==",
        "kubernetes-secret-yaml",
    ),
    Secret(
        "package registries",
        '<add key="ClearTextPassword" value="{secret}" />',
        "NugetFeedPw-2024",
        "nuget-config-password",
    ),
    Secret(
        "other SaaS APIs",
        "'secret_key' => '{secret}',",
        "sk_fmehp3m4v5HBwITSitVnSuhBdWXrv",
        "freemius-secret-key",
    ),
    Secret(
        "other SaaS APIs",
        "BUNDLE_ENTERPRISE__CONTRIBSYS__COM={secret}",
        "6ed6f94f:925c5b35",
        "sidekiq-secret",
    ),
    Secret(
        "source control & CI",
        "export SNYK_TOKEN={secret}",
        "f89a50f8-8e9b-8bdb-eba4-6bf92d5d9806",
        "snyk-api-token",
    ),
    Secret(
        "source control & CI",
        "src login --token {secret}",
        "sgp_8f1fb91fbed4f90b_856c015a5627d5b3d3435e7758ef690ec5a6d4e4",
        "sourcegraph-access-token",
    ),
    Secret(
        "source control & CI",
        "SRC_ACCESS_TOKEN={secret}",
        "sgp_77193966f23927a4393e9ad813be6a9219b192e3",
        "sourcegraph-access-token",
    ),
    Secret(
        "cloud & infrastructure",
        "DNKEY={secret}",
        "dnkey-w7b3pdkhx4py8g=pan0rlykei2-iaannkksum8nlmytbx0kjqevt-_a-vetwt4ul44ldqbwzb90xy_a",
        "defined-networking-api-token",
    ),
    Secret(
        "other SaaS APIs",
        "dropbox_token: {secret}",
        "clmhp3w6w7qAAAAAAAAAAg_xsc1fnv6xjvr8ftutlfjt4kdf=8zcp=wq30jdc5vn",
        "dropbox-long-lived-api-token",
    ),
    Secret(
        "other SaaS APIs",
        "DROPBOX_TOKEN={secret}",
        "sl.w7b3pdkhx4py8g-pan0rlykei2iiaannkksum8nlmytbx0kjqevt_=a_vetwt4ul44ldqbwzb90xy=a2clmhp3w6w7q3g=xsc1fnv6xjvr8ftutlfjt4kdf_8zcp_wq30jdc5vn",
        "dropbox-short-lived-api-token",
    ),
    Secret(
        "cloud & infrastructure",
        "NEW_RELIC_BROWSER_KEY={secret}",
        "NRJS-e7df75eb73e8f894923",
        "new-relic-browser-api-token",
    ),
    # --- random values with no name, no prefix: only their look gives them away ---
    Secret("random-looking value", "echo {secret} > .token", "CAQjdr6G4riMAbxzbmkst9ope261YeZr2uM5Sd1w"),
    Secret("random-looking value", "the key is {secret} for now", "MR0MTjhWwwyPXWzP0q162DnfZWJJ1PfY"),
    # --- hard cases, measured, not promised: a password in prose has no shape and no name; a
    # random value shorter than 32 characters with neither looks like the ids all around it ---
    Secret("short random value, no name", "ssh host 'deploy --with {secret}'", "Kq8vZ2xLp9sR4tYw7uN3mB6c"),
    Secret("password in prose", "the staging db password is {secret}, rotate it friday", "bluebird77"),
    Secret("password in prose", "log in as admin with {secret} and reset it", "Spring2024"),
]

# Texts without a secret: each must come out of the redactor unchanged.
PLAIN = [
    ("git SHA", "git show 3f2c9a7e1b4d4c1e9f002a6b5d8e7c10aabbccdd"),
    ("git SHA", "git revert a1b2c3d and git cherry-pick 0123456789abcdef0123456789abcdef01234567"),
    ("git SHA", "HEAD is now at 9fceb02 Fix the retry loop"),
    ("hash", "sha256sum: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt"),
    ("hash", "docker pull nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"),
    (
        "hash",
        '"integrity": "sha512-4GKUVZ3nqXG+bJF2+tBmAQ8p9aGx0pQq2m4Zs4lXKzL6cP7QnE1vHr8e7oK8y4uD2"'
        'Vx9o5w1q3zR6tY0uI8oP9Q=="',
    ),
    ("UUID", "session 3f2c9a7e-1b4d-4c1e-9f00-2a6b5d8e7c10 ended"),
    ("UUID", "kubectl delete pod api-7c9d8b6f5-x2x9z --namespace 5b8b1132-a1e9-40e4-b8c8-8f7b77bd11d2"),
    (
        "file path",
        "pytest tests/integration/test_payment_gateway_v2_retries.py::test_idempotency_key_reuse_2",
    ),
    ("file path", "cat /home/dev/projects/app-2024/src/components/UserProfileSettings3.tsx"),
    (
        "file path",
        "ls ~/.cache/pip/wheels/7a/1b/2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b",
    ),
    ("file path", "PASSWORD_FILE=/run/secrets/db_password docker compose up"),
    ("file path", "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519_github -C work"),
    (
        "base64 of text",
        "echo dGhpcyBpcyBvbmx5IGEgbm90ZSBhYm91dCB0aGUgd2Vla2x5IGRlcGxveSBzY2hlZHVsZQ== | base64 -d",
    ),
    (
        "base64 of text",
        "notes: UmVsZWFzZSBub3RlczogZml4ZWQgdGhlIGxvZ2luIHBhZ2UgYW5kIHRoZSByZXRyeSBsb29wIGluIDIuNC4x",
    ),
    ("long identifier", "python -m pytest -k test_redactor_keeps_long_identifiers_with_digits_2"),
    ("long identifier", "grep -rn getUserAccountSettingsForOrganization2 src/"),
    ("long identifier", "export const MAX_CONCURRENT_UPLOADS_PER_WORKSPACE_V2 = 8"),
    ("long identifier", "npm install @company/eslint-config-typescript-strict-2024"),
    ("-p is not a password", "ssh -p 22 deploy@10.0.0.5"),
    ("-p is not a password", "scp -P 2222 build.tar.gz deploy@host:/srv"),
    ("-p is not a password", "mkdir -p src/components/forms"),
    ("-p is not a password", "cp -p config.yaml config.yaml.bak"),
    ("-p is not a password", "docker run -p 8080:80 -p 5432:5432 app:latest"),
    ("-p is not a password", "git add -p src/app.py"),
    ("-p is not a password", "patch -p1 < fix.diff"),
    ("-p is not a password", "nc -l -p 4444"),
    ("-p is not a password", "ps -p 1234 -o pid,cmd"),
    ("-p is not a password", "pytest -p no:cacheprovider -q"),
    ("-p is not a password", "rsync -avp src/ host:dst/"),
    ("-p is not a password", "mysql -h db -P 3306 -u app -p"),
    ("-p is not a password", "docker login --password-stdin registry.example.com < pw.txt"),
    ("-p is not a password", "sshpass -f ~/.pw ssh -p 2200 host"),
    ("variable, not a value", 'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com'),
    ("variable, not a value", "export API_KEY=${API_KEY:-}"),
    ("variable, not a value", "PGPASSWORD=$DB_PASSWORD psql -h db"),
    ("variable, not a value", "mysql -u root -p$MYSQL_ROOT_PASSWORD"),
    ("variable, not a value", 'api_key = os.environ["OPENAI_API_KEY"]'),
    ("variable, not a value", "token = get_token(scope)"),
    ("variable, not a value", "TOKEN=$(cat ~/.config/token) ./deploy.sh"),
    ("config, no secret", "max_tokens=1024 temperature=0.2"),
    ("config, no secret", "--max-tokens 4096 --token-limit 100"),
    ("config, no secret", "sort --key=2 -t, data.csv"),
    ("config, no secret", "TOKEN_TYPE=bearer AUTH_MODE=oauth"),
    ("config, no secret", "primary_key: user_id"),
    ("config, no secret", "--tokenizer bert-base-uncased --author Jane"),
    ("config, no secret", "password_min_length: 12"),
    ("config, no secret", "SECRET_NAME=prod-db-credentials aws secretsmanager get-secret-value"),
    ("config, no secret", "auth: none"),
    (
        "URL without a password",
        "git clone https://github.com/owner/repo.git && open https://github.com/owner/repo/pull/1234",
    ),
    ("URL without a password", "ssh git@github.com && git remote add origin git@github.com:owner/repo.git"),
    ("URL without a password", "curl https://user@example.com/path?page=2&sort=desc"),
    ("prose", "The token expires after an hour; the password policy requires 12 characters."),
    ("prose", "Authorization header is missing, so the API answers 401."),
    ("prose", "use the key from the vault, never paste it here"),
    ("identifier", "docker logs 4f9c1a7e2b3d5c6e8f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e"),
    ("identifier", "aws ec2 stop-instances --instance-ids i-0abcd1234ef567890"),
    ("identifier", "kubectl logs api-7c9d8b6f5-x2x9z -c web"),
    ("identifier", "request id 01ARZ3NDEKTSV4RRFFQ69G5FAV failed"),
    ("identifier", "stripe payment_intents retrieve pi_3MtwBwLkdIwHu7ix28a3tqPa"),
    ("identifier", "gh run view 8123456789 --job 22334455667"),
    ("code and config", 'git commit -m "fix: rotate the api key handling in the session store"'),
    ("code and config", "kubectl create secret generic db --from-literal=user=app"),
    ("code and config", '{"token_count": 1234, "key": "README.md", "auth": "required"}'),
    ("code and config", "session_timeout: 30\nauth_method: oidc\ncache_key: v2-deps\nauthor: Jane Doe"),
    ("code and config", "openssl req -new -key server.key -out server.csr"),
    ("code and config", "gpg --recv-keys 0x1234ABCD5678EF90 && git config user.signingkey 1234ABCD5678EF90"),
    ("code and config", "def login(username, password=None): ..."),
    ("code and config", "password: str = Field(..., min_length=8)"),
    ("code and config", "const token = await fetchToken(user);"),
    ("code and config", 'secret = request.headers.get("X-Secret")'),
    ("code and config", "https://app.example.com/callback?code=4/0AX4XfWh&state=af0ifjsldkj"),
    ("code and config", "export NODE_OPTIONS=--max-old-space-size=4096"),
    ("code and config", "INFO token refreshed for user 42; WARN auth failed: invalid credentials"),
    ("other", "pip install requests==2.31.0 numpy>=1.26 'pydantic[email]<3'"),
    ("other", "timestamp 2026-11-20T12:00:00.123456Z from 192.168.10.24 and fe80::1ff:fe23:4567:890a"),
    ("other", "v1.2.3-rc.4+build.5 released by ci-bot@example.com"),
    ("other", 'Traceback (most recent call last): File "app/main.py", line 42, in handler'),
    ("other", "npm ERR! code E404 404 Not Found - GET https://registry.npmjs.org/@scope%2fpkg"),
    # issue 34 item 7: look-alikes of the places a password stands
    ("other", "echo 'deb http://deb.debian.org/debian bookworm main' | sudo tee /etc/apt/sources.list"),
    ("other", "sudo -S true && sudo apt-get update"),
    ("other", 'gh pr create --title "Fix login" --body "The password reset form now validates input"'),
    ("other", "gh secret list -R acme/app"),
    ("other", "export API_BASE=https://api.example.com/v2 API_VERSION=2024-01-01 USE_API=1"),
    ("other", "the password is stored in the vault, ask ops for access"),
    ("other", "Your password must be at least 12 characters long."),
    ("other", "machine learning models need a default login flow for the password reset page"),
    ("other", 'expect "$ "\nsend "ls -la\\r"'),
    ("other", "heroku ps:scale web=1 --app acme-staging"),
    ("other", "aws dynamodb create-table --key-schema AttributeName=id,KeyType=HASH --table-name t"),
    ("other", "ssh-keygen -t ed25519 -C dev@example.com -f ~/.ssh/id_ed25519"),
]


def labelled() -> list[Secret]:
    return gitleaks_examples() + HAND_WRITTEN


def figures() -> tuple[dict[str, tuple[int, int]], tuple[int, int]]:
    """Per kind (found, total) over the secrets, and (changed, total) over the plain texts."""
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from cortex_hooks.redact import redact

    per_kind: dict[str, tuple[int, int]] = {}
    for example in labelled():
        found, total = per_kind.get(example.kind, (0, 0))
        caught = example.secret not in redact(example.filled)
        per_kind[example.kind] = (found + caught, total + 1)
    changed = sum(redact(text) != text for _, text in PLAIN)
    return per_kind, (changed, len(PLAIN))


if __name__ == "__main__":
    kinds, (changed, plain) = figures()
    print("| kind | examples | redacted | recall |\n|---|---|---|---|")
    for kind, (found, total) in sorted(kinds.items()):
        print(f"| {kind} | {total} | {found} | {found / total:.0%} |")
    every = sum(total for _, total in kinds.values())
    caught = sum(found for found, _ in kinds.values())
    print(f"| all | {every} | {caught} | {caught / every:.1%} |")
    print(f"\nfalse redaction: {changed} of {plain} texts without a secret changed ({changed / plain:.1%})")
