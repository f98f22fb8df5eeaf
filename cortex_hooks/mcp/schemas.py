"""The JSON schemas of the MCP tools' arguments, generated from models.py ahead of time so that
tools/list never waits for pydantic's import (tests/test_mcp.py keeps the two in step; to write it
again: python -c 'from cortex_hooks.mcp import models; models.write_schemas()')."""

from __future__ import annotations

import json
from typing import Any

SCHEMAS: dict[str, Any] = json.loads(
    r"""
{
 "cortex_add_learning": {
  "additionalProperties": false,
  "properties": {
   "regex": {
    "type": "string",
    "description": "detection regex (required, unless no_regex)"
   },
   "tool": {
    "type": "string",
    "description": "Claude Code tool matcher, e.g. Bash (default * = every tool)"
   },
   "target": {
    "enum": [
     "content",
     "path",
     "input",
     "raw"
    ],
    "type": "string",
    "description": "what the regex is matched against (default content)"
   },
   "severity": {
    "enum": [
     "low",
     "medium",
     "high",
     "critical"
    ],
    "type": "string",
    "description": "default medium"
   },
   "action": {
    "enum": [
     "block",
     "ask",
     "warn"
    ],
    "type": "string",
    "description": "what a trusted match does: block, ask (the user decides) or warn (the default)"
   },
   "confidence": {
    "type": "number",
    "description": "0.30 to 0.90, at most two decimals (default 0.70)"
   },
   "context": {
    "type": "string",
    "description": "why, where it came from"
   },
   "global": {
    "default": false,
    "description": "act on the user-global database instead of the project's",
    "type": "boolean"
   },
   "anti_pattern": {
    "description": "what not to do",
    "type": "string"
   },
   "correct_pattern": {
    "description": "what to do instead (the text of a deny)",
    "type": "string"
   },
   "auto_block": {
    "default": false,
    "description": "deny matching calls once trusted, instead of warning",
    "type": "boolean"
   },
   "pinned": {
    "default": false,
    "description": "exempt from decay and pruning",
    "type": "boolean"
   },
   "no_regex": {
    "default": false,
    "description": "no regex: a reminder that never matches",
    "type": "boolean"
   }
  },
  "required": [
   "anti_pattern",
   "correct_pattern"
  ],
  "type": "object"
 },
 "cortex_update_learning": {
  "additionalProperties": false,
  "properties": {
   "regex": {
    "type": "string",
    "description": "detection regex (required, unless no_regex)"
   },
   "tool": {
    "type": "string",
    "description": "Claude Code tool matcher, e.g. Bash (default * = every tool)"
   },
   "target": {
    "enum": [
     "content",
     "path",
     "input",
     "raw"
    ],
    "type": "string",
    "description": "what the regex is matched against (default content)"
   },
   "severity": {
    "enum": [
     "low",
     "medium",
     "high",
     "critical"
    ],
    "type": "string",
    "description": "default medium"
   },
   "action": {
    "enum": [
     "block",
     "ask",
     "warn"
    ],
    "type": "string",
    "description": "what a trusted match does: block, ask (the user decides) or warn (the default)"
   },
   "confidence": {
    "type": "number",
    "description": "0.30 to 0.90, at most two decimals (default 0.70)"
   },
   "context": {
    "type": "string",
    "description": "why, where it came from"
   },
   "global": {
    "default": false,
    "description": "act on the user-global database instead of the project's",
    "type": "boolean"
   },
   "id": {
    "description": "the learning's id",
    "type": "integer"
   },
   "anti_pattern": {
    "type": "string"
   },
   "correct_pattern": {
    "type": "string"
   },
   "auto_block": {
    "type": "boolean",
    "description": "true: deny once trusted; false: only warn"
   },
   "pinned": {
    "const": true,
    "type": "boolean",
    "description": "true pins it (unpin: cortex-hooks unpin ID)"
   }
  },
  "required": [
   "id"
  ],
  "type": "object"
 },
 "cortex_list_learnings": {
  "additionalProperties": false,
  "properties": {
   "archived": {
    "default": false,
    "description": "archived learnings only",
    "type": "boolean"
   },
   "all": {
    "default": false,
    "description": "active and archived",
    "type": "boolean"
   },
   "review": {
    "default": false,
    "description": "only those awaiting review (keep or archive?)",
    "type": "boolean"
   },
   "global": {
    "default": false,
    "description": "act on the user-global database instead of the project's",
    "type": "boolean"
   }
  },
  "type": "object"
 },
 "cortex_run_pruning": {
  "additionalProperties": false,
  "properties": {
   "dry_run": {
    "default": false,
    "description": "say what would be archived, change nothing",
    "type": "boolean"
   }
  },
  "type": "object"
 },
 "cortex_recall": {
  "additionalProperties": false,
  "properties": {
   "query": {
    "description": "the words to look for",
    "type": "string"
   },
   "limit": {
    "type": "integer",
    "description": "at most this many results (default 10)"
   },
   "type": {
    "enum": [
     "architecture",
     "decision",
     "pattern",
     "gotcha",
     "progress",
     "context",
     "code_description",
     "code"
    ],
    "type": "string",
    "description": "memories of this type only"
   },
   "kind": {
    "enum": [
     "memory",
     "learning",
     "decision",
     "error",
     "todo"
    ],
    "type": "string",
    "description": "one kind only"
   },
   "scope": {
    "default": "both",
    "description": "which databases to search",
    "enum": [
     "both",
     "project",
     "global"
    ],
    "type": "string"
   }
  },
  "required": [
   "query"
  ],
  "type": "object"
 },
 "cortex_remember": {
  "additionalProperties": false,
  "properties": {
   "content": {
    "description": "the knowledge to keep",
    "type": "string"
   },
   "type": {
    "enum": [
     "architecture",
     "decision",
     "pattern",
     "gotcha",
     "progress",
     "context",
     "code_description",
     "code"
    ],
    "type": "string",
    "description": "default context"
   },
   "summary": {
    "type": "string",
    "description": "default: the first line of the content"
   },
   "priority": {
    "type": "integer",
    "description": "1 to 10 (default 5)"
   },
   "tags": {
    "items": {
     "type": "string"
    },
    "type": "array"
   },
   "pinned": {
    "default": false,
    "description": "keep it at the top, never decayed",
    "type": "boolean"
   },
   "global": {
    "default": false,
    "description": "act on the user-global database instead of the project's",
    "type": "boolean"
   }
  },
  "required": [
   "content"
  ],
  "type": "object"
 },
 "cortex_forget": {
  "additionalProperties": false,
  "properties": {
   "id": {
    "type": "integer",
    "description": "the memory's id (give id or match)"
   },
   "match": {
    "type": "string",
    "description": "archive the memory that best matches these words"
   },
   "global": {
    "default": false,
    "description": "act on the user-global database instead of the project's",
    "type": "boolean"
   }
  },
  "type": "object"
 },
 "cortex_index_code": {
  "additionalProperties": false,
  "properties": {
   "path": {
    "description": "the file, relative to the project or absolute",
    "type": "string"
   },
   "prose": {
    "description": "what the file does, in words",
    "type": "string"
   },
   "global": {
    "default": false,
    "description": "act on the user-global database instead of the project's",
    "type": "boolean"
   }
  },
  "required": [
   "path",
   "prose"
  ],
  "type": "object"
 },
 "cortex_consolidate": {
  "additionalProperties": false,
  "properties": {
   "dry_run": {
    "default": false,
    "description": "say what would merge, write nothing (no checkpoint)",
    "type": "boolean"
   },
   "global": {
    "default": false,
    "description": "act on the user-global database instead of the project's",
    "type": "boolean"
   }
  },
  "type": "object"
 },
 "cortex_reflect": {
  "additionalProperties": false,
  "properties": {
   "action": {
    "description": "decay (memories not accessed lately lose confidence) or similar (near-duplicates)",
    "enum": [
     "decay",
     "similar"
    ],
    "type": "string"
   },
   "days": {
    "type": "integer",
    "description": "decay: not accessed for this many days (default 30)"
   },
   "threshold": {
    "type": "number",
    "description": "similar: the least similarity (default 0.85)"
   },
   "limit": {
    "type": "integer",
    "description": "similar: at most this many pairs (default 20)"
   },
   "dry_run": {
    "default": false,
    "description": "decay: say what would change, change nothing",
    "type": "boolean"
   },
   "global": {
    "default": false,
    "description": "decay: the user-global database; similar: compare across both scopes",
    "type": "boolean"
   }
  },
  "required": [
   "action"
  ],
  "type": "object"
 },
 "cortex_snapshot": {
  "additionalProperties": false,
  "properties": {},
  "type": "object"
 },
 "cortex_get_access_stats": {
  "additionalProperties": false,
  "properties": {},
  "type": "object"
 }
}
"""
)
