"""The command reader: a Bash command as the simple commands the shell would run."""
