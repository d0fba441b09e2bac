# Aliases (6.6); bash -c expands them only with expand_aliases.
#### alias-basic
shopt -s expand_aliases
alias hi='echo hello'
hi there
#### alias-not-expanded-by-default
alias hi='echo hello'
hi 2>/dev/null; echo st=$?
#### alias-pipe
shopt -s expand_aliases
alias up='tr a-z A-Z |cat'
echo abc | up
#### alias-and
shopt -s expand_aliases
alias both='echo one && echo two'
both
#### alias-semicolon
shopt -s expand_aliases
alias two='echo a; echo b'
two
#### alias-trailing-space
shopt -s expand_aliases
alias s='sudo_like '
alias ll='echo listed'
sudo_like() { "$@"; }
s ll
#### alias-list
alias a1='echo x' a2='ls -l'; alias
#### alias-p-one
alias q='echo "quoted"'; alias q
#### unalias
shopt -s expand_aliases
alias z='echo z'
unalias z
z 2>/dev/null; echo st=$?
#### unalias-a
alias a='x' b='y'; unalias -a; alias; echo st=$?
#### alias-recursive-guard
shopt -s expand_aliases
alias echo='echo [aliased]'
echo hi
#### alias-missing
alias nope; echo st=$?
