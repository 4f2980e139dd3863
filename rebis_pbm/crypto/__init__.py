"""Cryptography through maintained libraries: SSH signatures (sshsig) and age (pyrage)."""
