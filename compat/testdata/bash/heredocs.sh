# Here documents (3.6.6).
#### basic-expanding
x=val; cat <<EOT
x is $x, sum $((1+1)), cmd $(echo c)
EOT
#### quoted-delimiter
x=val; cat <<'EOT'
x is $x $(nope)
EOT
#### dash-strips-tabs
cat <<-EOT
	tabbed
		twice
	EOT
#### backslash-in-heredoc
cat <<EOT
a\$b c\\d e\f
EOT
#### heredoc-into-var
v=$(cat <<EOT
line1
line2
EOT
); echo "$v"
#### heredoc-to-read
read a b <<EOT
one two
EOT
echo $b
#### heredoc-multiple
cat <<A; cat <<B
first
A
second
B
#### heredoc-in-function
f() { cat <<EOT
in f: $1
EOT
}; f arg
#### heredoc-fd3
## differs: a child process does not get fds 3 and up (guardsh's fd table is in the shell)
cat /dev/fd/3 3<<EOT
on three
EOT
#### heredoc-pipe
cat <<EOT | tr a-z A-Z
upper
EOT
#### heredoc-while
while read l; do echo "<$l>"; done <<EOT
a
b
EOT
#### heredoc-quoted-partial
## differs: a partly quoted delimiter (<<"E"OT): mvdan's parser
cat <<"E"OT
$literal
EOT
#### heredoc-empty
cat <<EOT
EOT
echo done
#### heredoc-unterminated
cat <<EOT
no end
#### heredoc-dq-inside
cat <<EOT
"quoted" 'single' \`tick\`
EOT
