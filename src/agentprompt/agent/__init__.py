"""The agent prompting system of seed 001: prompts, profiles and (later) the turn driver."""
